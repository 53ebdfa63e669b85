import { describe, expect, it } from 'vitest';
import {
  MAX_WARNINGS_PER_RESPONSE,
  parseWarningHeader,
  parseWarningHeaders,
  WarningLogger,
} from './warning-handler.js';

describe('parseWarningHeaders (apimachinery ParseWarningHeaders)', () => {
  it('parses code, agent and quoted text, with an optional date', () => {
    expect(parseWarningHeader('299 - "apps/v1beta1 is deprecated"')).toEqual({
      warning: { code: 299, agent: '-', text: 'apps/v1beta1 is deprecated' },
      remainder: '',
    });
    expect(
      parseWarningHeader(
        '299 kube-apiserver "a \\"quoted\\" word" "Wed, 21 Oct 2015 07:28:00 GMT"',
      ),
    ).toEqual({
      warning: { code: 299, agent: 'kube-apiserver', text: 'a "quoted" word' },
      remainder: '',
    });
  });

  it('reads comma-separated lists and several header values', () => {
    const { warnings, errors } = parseWarningHeaders([
      '299 - "first", 299 - "second" "Wed, 21 Oct 2015 07:28:00 GMT", 199 agent "third"',
      '299 - "fourth"',
    ]);
    expect(warnings.map((warning) => warning.text)).toEqual(['first', 'second', 'third', 'fourth']);
    expect(errors).toEqual([]);
  });

  it('decodes RFC 2047 encoded words', () => {
    expect(parseWarningHeader('299 - "=?utf-8?b?w7xuaWPDtmRl?="').warning.text).toBe('ünicöde');
    expect(parseWarningHeader('299 - "=?UTF-8?Q?a_=C3=BC?="').warning.text).toBe('a ü');
  });

  it('skips the rest of a malformed header value and reports why', () => {
    const { warnings, errors } = parseWarningHeaders(['299 - "ok", nonsense', '29 - "x"', '299 -']);
    expect(warnings.map((warning) => warning.text)).toEqual(['ok']);
    expect(errors.map((error) => error.message)).toEqual([
      'invalid warning header: fewer than 3 segments',
      'invalid warning header: code segment is not 3 digits between 100-299',
      'invalid warning header: fewer than 3 segments',
    ]);
    expect(() => parseWarningHeader('299 - "unterminated')).toThrow(
      'invalid warning header: invalid quoted string: missing closing quote',
    );
    expect(() => parseWarningHeader('299 - "text" junk')).toThrow(
      'invalid warning header: unexpected token after warn-date',
    );
  });
});

describe('parseWarningHeaders bounds', () => {
  it(`reads at most ${MAX_WARNINGS_PER_RESPONSE} warnings and as many errors from one response`, () => {
    const many = Array.from({ length: 1000 }, (_, index) => `299 - "w${index}"`);
    const listed = parseWarningHeaders(many.join(', '));
    expect(listed.warnings.map((warning) => warning.text)).toEqual(
      many.slice(0, MAX_WARNINGS_PER_RESPONSE).map((_, index) => `w${index}`),
    );
    const skipped = `more than ${MAX_WARNINGS_PER_RESPONSE} warnings in one response: the rest are skipped`;
    expect(listed.errors.map((error) => error.message)).toEqual([skipped]);
    // One header value each, as a proxy may send them.
    expect(parseWarningHeaders(many).warnings).toHaveLength(MAX_WARNINGS_PER_RESPONSE);
    const malformed = parseWarningHeaders(Array.from({ length: 1000 }, () => 'nonsense'));
    expect(malformed.warnings).toEqual([]);
    expect(malformed.errors).toHaveLength(MAX_WARNINGS_PER_RESPONSE + 1);
    expect(malformed.errors.at(-1)?.message).toBe(skipped);
  });
});

describe('WarningLogger', () => {
  it('logs each distinct 299 warning with text once', () => {
    const lines: string[] = [];
    const logger = new WarningLogger({ write: (line) => lines.push(line) });
    for (const text of ['deprecated', 'deprecated', 'other', '']) {
      logger.handleWarning({ code: 299, agent: '-', text });
    }
    logger.handleWarning({ code: 199, agent: '-', text: 'misc' });
    expect(lines).toEqual(['Warning: deprecated\n', 'Warning: other\n']);
  });

  it('can log every occurrence', () => {
    const lines: string[] = [];
    const logger = new WarningLogger({ deduplicate: false, write: (line) => lines.push(line) });
    logger.handleWarning({ code: 299, agent: '-', text: 'again' });
    logger.handleWarning({ code: 299, agent: '-', text: 'again' });
    expect(lines).toHaveLength(2);
  });

  it('remembers a bounded number of distinct texts, forgetting the oldest first', () => {
    const lines: string[] = [];
    const logger = new WarningLogger({ write: (line) => lines.push(line) });
    for (let index = 0; index < 1025; index += 1) {
      logger.handleWarning({ code: 299, agent: '-', text: `warning ${index}` });
    }
    logger.handleWarning({ code: 299, agent: '-', text: 'warning 1024' });
    logger.handleWarning({ code: 299, agent: '-', text: 'warning 1' });
    expect(lines).toHaveLength(1025);
    // The oldest was forgotten when the 1025th arrived, so it prints again.
    logger.handleWarning({ code: 299, agent: '-', text: 'warning 0' });
    expect(lines.at(-1)).toBe('Warning: warning 0\n');
  });
});
