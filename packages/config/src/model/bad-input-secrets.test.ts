import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeconfigError } from '../errors.js';
import { expectParseError, parseOutcome } from './__fixtures__/bad-input.js';

/** Property runs and big inputs take seconds on a busy machine; 5 s is too tight. */
const SLOW_TEST_TIMEOUT = 60_000;

// Secrets never leak through errors: not in the message, not in String(error), not in the
// `problems`, not in the cause chain, not in what util.inspect prints (stack, own fields).
// The yaml library's messages quote source text in several places (an alias name, a tag, a
// block scalar header, an escape sequence); those are the cases below.

const SECRET = 'S3CR3T-hunter2-value';

/** Everything a person or a log could see of an error, the cause chain included. */
function visibleText(error: KubeconfigError): string {
  const parts: string[] = [String(error), error.stack ?? '', inspect(error, { depth: 10 })];
  parts.push(...error.problems);
  for (let cause: unknown = error.cause; cause !== undefined;) {
    parts.push(inspect(cause, { depth: 10 }));
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return parts.join('\n');
}

function expectNoLeak(error: KubeconfigError, secret = SECRET) {
  const text = visibleText(error);
  expect(text).not.toContain(secret);
  // Not even a part of it: the distinctive stem is enough to tell.
  expect(text).not.toContain(secret.slice(0, 6));
}

/** User stanzas whose secret value is malformed in one way each; each must fail. */
const MALFORMED_SECRETS: Record<string, string> = {
  'an alias': `token: *${SECRET}`,
  'an undefined tag handle': `token: !x!${SECRET}`,
  'a tag with no suffix': `token: !${SECRET}! value`,
  'a literal block header': `token: |${SECRET}`,
  'a folded block header': `password: >${SECRET} more`,
  'a bad \\U escape': `password: "\\U${SECRET}"`,
  'a bad \\x escape': `password: "\\x${SECRET}"`,
  'a bad escape in the middle': `password: "${SECRET}\\q${SECRET}"`,
  'an unclosed double quote': `password: "${SECRET}`,
  'an unclosed single quote': `password: '${SECRET}`,
  'junk after a quoted value': `token: "${SECRET}" ${SECRET}`,
  'a nested mapping in a compact one': `token: ${SECRET}: ${SECRET}: x`,
  'a reserved first character': `token: @${SECRET}`,
  'a backtick first character': `token: \`${SECRET}`,
  'a merge of a scalar': `<<: &a ${SECRET}\n    b: *a\n    <<: *a`,
  'a bad indentation after it': `token: ${SECRET}\n   password: ${SECRET}`,
  'a tab indentation': `token: ${SECRET}\n\tpassword: ${SECRET}`,
  'a flow mapping left open': `auth-provider: {name: oidc, config: {id-token: ${SECRET}, refresh-token: ${SECRET}`,
  'a flow sequence left open': `as-groups: [${SECRET}, ${SECRET}`,
  'invalid base64 key data': `client-key-data: ${SECRET}!!`,
  'base64 without padding': `client-certificate-data: ${Buffer.from(SECRET).toString('base64').replace(/=+$/, '')}`,
  'a list where a string goes': `token: [${SECRET}]`,
  'a mapping where a string goes': `password: {value: ${SECRET}}`,
  'a number where a string goes, after a secret': `token: ${SECRET}\n    username: 12`,
  'a control character next to it': `token: ${SECRET}\u0001${SECRET}`,
  'a DEL inside quotes': `password: "${SECRET}\u007f"`,
  'an exec env value of the wrong type': `exec: {command: x, env: [{name: TOKEN, value: [${SECRET}]}]}`,
  'an as-user-extra value of the wrong type': `as-user-extra: {scopes: {${SECRET}: 1}}`,
  'an auth-provider config value of the wrong type': `auth-provider: {name: oidc, config: {id-token: [${SECRET}]}}`,
};

function userDocument(stanza: string): string {
  return `apiVersion: v1\nusers:\n- name: someone\n  user:\n    ${stanza}\ncontexts: []\n`;
}

describe('malformed secret values', { timeout: SLOW_TEST_TIMEOUT }, () => {
  it.each(Object.entries(MALFORMED_SECRETS))(
    '%s: the error does not show the secret',
    (_, stanza) => {
      expectNoLeak(expectParseError(userDocument(stanza)));
    },
  );

  it.each([
    ['a verbatim tag', userDocument(`token: !<${SECRET}> value`)],
    ['a dash inside a plain value', userDocument(`token: ${SECRET} - ${SECRET}`)],
    ['a YAML version', `%YAML ${SECRET}\n---\napiVersion: v1\n`],
    ['an unknown directive', `%${SECRET} x\n---\nfoo: [\n`],
    ['an ordered map with duplicate keys', `x: !!omap [{${SECRET}: 1}, {${SECRET}: 2}]\n`],
    ['a second document', `apiVersion: v1\n---\ntoken: *${SECRET}\n`],
    ['UTF-16 without a BOM', Buffer.from(`token: ${SECRET}\n`, 'utf16le')],
    [
      'invalid UTF-8 next to it',
      Buffer.concat([Buffer.from(`token: ${SECRET}`), Buffer.from([0xff])]),
    ],
  ] as const)('%s: a config, or an error that does not show the text', (_, source) => {
    const outcome = parseOutcome(source);
    if (!outcome.ok) expectNoLeak(outcome.error);
  });

  it('keeps the diagnosis and the position', () => {
    const error = expectParseError(userDocument(`token: *${SECRET}`));
    expect(error.message).toBe(
      'error loading config file "bad-input.yaml": Unresolved alias (the anchor must be set before the alias)',
    );
    const tag = expectParseError(userDocument(`token: !x!${SECRET}`));
    expect(tag.message).toBe(
      'error loading config file "bad-input.yaml": yaml: line 5, column 12: Could not resolve tag',
    );
    const escape = expectParseError(userDocument(`password: "\\U${SECRET}"`));
    expect(escape.message).toMatch(/yaml: line 5, column \d+: Invalid escape sequence$/);
  });

  it('does not keep the yaml library error, which quotes the source, as the cause', () => {
    for (const stanza of Object.values(MALFORMED_SECRETS)) {
      const outcome = parseOutcome(userDocument(stanza));
      if (!outcome.ok) expect(outcome.error.cause).toBeUndefined();
    }
  });
});

describe('random damage near secrets', { timeout: SLOW_TEST_TIMEOUT }, () => {
  // Secrets of every shape YAML cares about: quotes, colons, hashes, anchors, tags, escapes.
  const secretStem = 'S3CR3T';
  const secret = fc
    .string({
      unit: fc.constantFrom(...'abcXYZ0189+/=-_.:#&*!|>%@`"\'\\{}[], '.split('')),
      minLength: 4,
      maxLength: 16,
    })
    .map((tail) => `${secretStem}${tail}`);
  const fields = ['token', 'password', 'client-key-data', 'username'];
  const stanza = fc.tuple(fc.constantFrom(...fields), secret).map(([field, value]) => {
    return { field, value };
  });
  const damage = fc.constantFrom(
    (value: string) => value,
    (value: string) => `"${value}`,
    (value: string) => `'${value}`,
    (value: string) => `*${value}`,
    (value: string) => `!${value}`,
    (value: string) => `!x!${value}`,
    (value: string) => `|${value}`,
    (value: string) => `>${value}`,
    (value: string) => `"\\U${value}"`,
    (value: string) => `"\\x${value}"`,
    (value: string) => `"${value}\\q"`,
    (value: string) => `&${value} ${value}`,
    (value: string) => `[${value}`,
    (value: string) => `{${value}`,
    (value: string) => `${value}: ${value}`,
    (value: string) => `${value}\n\t${value}`,
    (value: string) => `${value}\n   ${value}: x`,
    (value: string) => `[${value}]`,
  );

  it('errors for damaged secret values never show them', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(stanza, damage), { minLength: 1, maxLength: 3 }), (entries) => {
        const lines = entries.map(([{ field, value }, damageOf]) => `${field}: ${damageOf(value)}`);
        const outcome = parseOutcome(userDocument(lines.join('\n    ')));
        if (!outcome.ok) expectNoLeak(outcome.error, secretStem);
      }),
      { seed: 20_240_601, numRuns: 3000 },
    );
  });
});
