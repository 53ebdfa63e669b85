import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatKubeconfig } from '../view/format-kubeconfig.js';
import { expectParseError, expectParsed, parseOutcome } from './__fixtures__/bad-input.js';

/** Property runs and big inputs take seconds on a busy machine; 5 s is too tight. */
const SLOW_TEST_TIMEOUT = 60_000;

// Inputs built to exhaust time, memory or stack: alias bombs, deep nesting, huge files.
// Each must end with a config or a typed error; none may crash or overflow. A hang is caught by
// the test timeout; how fast and how much memory are benchmark questions, not asserted here.

/** billionLaughs nests `levels` anchors, each aliasing the previous one nine times. */
function billionLaughs(levels: number, indent = ''): string {
  let text = `${indent}l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n`;
  for (let level = 1; level < levels; level++) {
    const aliases = Array.from({ length: 9 }, () => `*l${level - 1}`).join(', ');
    text += `${indent}l${level}: &l${level} [${aliases}]\n`;
  }
  return text;
}

describe('alias bombs', { timeout: SLOW_TEST_TIMEOUT }, () => {
  // kubectl stops these too: "yaml: document contains excessive aliasing".
  const bombs: Record<string, string> = {
    'at the top level': billionLaughs(10),
    'under an unknown field': `junk:\n${billionLaughs(10, '  ')}current-context: x\n`,
    'in an extension': `extensions:\n- name: bomb\n  extension:\n${billionLaughs(10, '    ')}`,
    'in a typed list': `${billionLaughs(10)}users:\n- name: u\n  user:\n    as-groups: *l9\n`,
    'in exec args': `${billionLaughs(10)}users:\n- name: u\n  user:\n    exec: {command: x, args: *l9}\n`,
    'through merge keys': Array.from({ length: 30 }, (_, level) =>
      level === 0
        ? 'm0: &m0 {k0: v}\n'
        : `m${level}: &m${level} {<<: [*m${level - 1}, *m${level - 1}], k${level}: v}\n`,
    ).join(''),
    'as one anchor aliased many times': `big: &big [${'x, '.repeat(10_000)}x]\n${Array.from(
      { length: 5000 },
      (_, index) => `a${index}: *big\n`,
    ).join('')}`,
    // Few aliases of a wide anchor: the yaml library's alias count lets these through.
    'as a wide anchor aliased 500 times in an extension': `extensions:\n- name: wide\n  extension:\n    big: &big [${'x,'.repeat(50_000)}x]\n    copies: [${'*big,'.repeat(499)}*big]\n`,
    'as a wide anchor merged 200 times': `base: &base {${Array.from(
      { length: 20_000 },
      (_, index) => `k${index}: v`,
    ).join(', ')}}\nmerged:\n${'  - {<<: *base}\n'.repeat(200)}`,
    'as a wide list aliased in 500 users': `groups: &groups [${'g,'.repeat(10_000)}g]\nusers:\n${Array.from(
      { length: 500 },
      (_, index) => `- {name: u${index}, user: {as-groups: *groups}}\n`,
    ).join('')}`,
  };

  it.each(Object.entries(bombs))('%s is refused by the alias guard', (_, text) => {
    const error = expectParseError(text);
    expect(error.code).toBe('ERR_CONFIG_PARSE');
    expect(error.message).toContain('Excessive alias count indicates a resource exhaustion attack');
  });

  it('still allows ordinary reuse of anchors, thousands of times as kubectl does', () => {
    const users = Array.from(
      { length: 5000 },
      (_, index) => `- name: u${index}\n  user: *shared\n`,
    );
    const text = `users:\n- name: base\n  user: &shared {token: shared-token}\n${users.join('')}`;
    const config = expectParsed(text);
    expect(config.users.size).toBe(5001);
    expect(config.users.get('u4999')).toEqual({ token: 'shared-token' });
  });
});

describe('deep nesting', { timeout: SLOW_TEST_TIMEOUT }, () => {
  type Shape = (depth: number) => string;
  const shapes: Record<string, Shape> = {
    'flow sequences': (depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`,
    'flow mappings': (depth) => `${'{a: '.repeat(depth)}1${'}'.repeat(depth)}`,
    'block sequences': (depth) => `\n${' '.repeat(6)}${'- '.repeat(depth)}x`,
    'block mappings': (depth) =>
      Array.from({ length: depth }, (_, level) => `\n${' '.repeat(6 + level)}k:`).join('') + ' x',
    'mixed flow': (depth) => `${'[{a: '.repeat(depth)}1${'}]'.repeat(depth)}`,
  };
  const inExtension = (value: string) => `extensions:\n- name: deep\n  extension: ${value}\n`;
  const inUnknownField = (value: string) => `apiVersion: v1\njunk:\n  value: ${value}\n`;

  it.each(Object.entries(shapes))('100 levels of %s parse, as in kubectl', (_, shape) => {
    const config = expectParsed(inExtension(shape(100)));
    expect(config.extensions.has('deep')).toBe(true);
  });

  // kubectl accepts up to 10,000 levels; a file nested deeper than 256 is refused here: the yaml
  // library overflows its stack parsing about 800 levels of flow sequences, and printing about
  // 640, which a file that loaded must survive. Real files nest < 10.
  const TOO_DEEP =
    /^error loading config file "bad-input\.yaml": yaml: (line \d+, column \d+: nested too deeply|nested deeper than 256 levels)$/;

  it.each(Object.entries(shapes))(
    '20,000 levels of %s fail with a typed error, not a stack overflow',
    (_, shape) => {
      expect(expectParseError(inExtension(shape(20_000))).message).toMatch(TOO_DEEP);
    },
  );

  it.each(Object.entries(shapes))(
    '300 and 700 levels of %s fail with a typed error naming the depth',
    (_, shape) => {
      expect(expectParseError(inExtension(shape(300))).message).toMatch(TOO_DEEP);
      expect(expectParseError(inExtension(shape(700))).message).toMatch(TOO_DEEP);
    },
  );

  it('every depth gives a config that prints as YAML and JSON, or a typed error, around the stack limits too', () => {
    const depth = fc.oneof(fc.integer({ min: 1, max: 3000 }), fc.integer({ min: 200, max: 1200 }));
    const shape = fc.constantFrom(...Object.values(shapes));
    const position = fc.constantFrom(inExtension, inUnknownField);
    fc.assert(
      fc.property(depth, shape, position, (levels, shapeOf, place) => {
        const outcome = parseOutcome(place(shapeOf(levels)));
        if (outcome.ok) {
          formatKubeconfig(outcome.file.config, 'yaml');
          formatKubeconfig(outcome.file.config, 'json');
        } else expect(outcome.error.message).toMatch(TOO_DEEP);
      }),
      { seed: 20_240_601, numRuns: 400 },
    );
  });

  it('a deep extension below the limit decodes to plain data', () => {
    // Find the limit (the depth bound, or the parser's stack where that is lower; the stack moves
    // a little with JIT state), then check well below it for a config and just above it for a
    // config or a typed error.
    let [low, high] = [1, 20_000];
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (parseOutcome(inExtension(shapes['flow sequences']!(middle))).ok) low = middle;
      else high = middle - 1;
    }
    const depth = Math.floor(low * 0.8);
    let value = expectParsed(inExtension(shapes['flow sequences']!(depth))).extensions.get('deep');
    for (let level = 1; level < depth; level++) value = (value as unknown[])[0];
    expect(value).toEqual([]);
    for (let extra = 1; extra <= 20; extra++)
      parseOutcome(inExtension(shapes['flow sequences']!(low + extra)));
  });
});

describe('huge files', { timeout: SLOW_TEST_TIMEOUT }, () => {
  /** realisticKubeconfig writes `count` clusters with CA data, users with tokens, contexts. */
  function realisticKubeconfig(count: number): string {
    const certificateAuthority = Buffer.alloc(1100, 'certificate').toString('base64');
    const parts = ['apiVersion: v1\nkind: Config\nclusters:\n'];
    for (let index = 0; index < count; index++) {
      parts.push(
        `- name: cluster-${index}\n  cluster:\n    server: https://10.0.${index % 250}.1:6443\n`,
      );
      parts.push(`    certificate-authority-data: ${certificateAuthority}\n`);
    }
    parts.push('users:\n');
    for (let index = 0; index < count; index++)
      parts.push(`- name: user-${index}\n  user:\n    token: ${'t'.repeat(40)}-${index}\n`);
    parts.push('contexts:\n');
    for (let index = 0; index < count; index++) {
      parts.push(`- name: context-${index}\n  context: {cluster: cluster-${index}, `);
      parts.push(`user: user-${index}, namespace: namespace-${index}}\n`);
    }
    return `${parts.join('')}current-context: context-0\n`;
  }

  it('a 20 MB kubeconfig with 12,000 entries of each kind parses', () => {
    const text = realisticKubeconfig(12_000);
    expect(text.length).toBeGreaterThan(20e6);
    const config = expectParsed(Buffer.from(text));
    expect([config.clusters.size, config.users.size, config.contexts.size]).toEqual([
      12_000, 12_000, 12_000,
    ]);
    expect(config.clusters.get('cluster-11999')?.certificateAuthorityData?.length).toBe(1100);
    expect(config.contexts.get('context-11999')?.namespace).toBe('namespace-11999');
  });

  it('a 20 MB token parses', () => {
    const token = 'a'.repeat(20e6);
    const config = expectParsed(`users:\n- name: u\n  user:\n    token: ${token}\n`);
    expect(config.users.get('u')?.token?.length).toBe(20e6);
  });

  it('20 MB of comments parse', () => {
    const text = `${`# ${'c'.repeat(98)}\n`.repeat(200_000)}current-context: after-comments\n`;
    expect(expectParsed(text).currentContext).toBe('after-comments');
  });

  // Dense YAML costs the yaml library about 800 bytes of heap per node (1 MB of `- a` lines
  // is 250,000 nodes, about 200 MB); a 20 MB file of them needs about 4 GB and a minute,
  // kubectl about 14 s. Kept small here.
  it('a dense list of 100,000 items parses', () => {
    const text = `apiVersion: v1\njunk:\n${'- a\n'.repeat(100_000)}`;
    expect(expectParsed(text).extensions.size).toBe(0);
  });

  it('a huge file with a duplicate name at the end fails naming it', () => {
    const text = `${realisticKubeconfig(2000)}clusters:\n- name: a\n- name: a\n`;
    // A repeated top-level key replaces the earlier list, as in kubectl; the new one has a duplicate.
    const error = expectParseError(text, '/big/kubeconfig');
    expect(error.message).toBe(
      'error loading config file "/big/kubeconfig": duplicate name "a" in clusters',
    );
  });
});
