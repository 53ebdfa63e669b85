import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, redactSecrets } from './redact-secrets.js';

describe('redactSecrets', () => {
  it('replaces known secrets wherever they appear, longest first', () => {
    expect(redactSecrets('token=abcd and abcdef!', ['abcd', 'abcdef'])).toBe(
      `token=${REDACTED} and ${REDACTED}!`,
    );
  });

  it('hides PEM private keys, authorization values, JWTs and long random tokens', () => {
    const text = [
      'key: -----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY-----',
      'sent Authorization: Bearer sha256~abc.def and Basic dXNlcjpwYXNz',
      'jwt eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl',
      'token 6f1e0a9b3c2d4e5f60718293a4b5c6d7e8f90123456789ab',
    ].join('\n');
    const redacted = redactSecrets(text);
    expect(redacted).not.toContain('MHcCAQEE');
    expect(redacted).not.toContain('sha256~abc');
    expect(redacted).not.toContain('dXNlcjpwYXNz');
    expect(redacted).not.toContain('eyJzdWIiOiJ4In0');
    expect(redacted).not.toContain('6f1e0a9b3c2d');
    expect(redacted).toContain(`Bearer ${REDACTED}`);
  });

  it('keeps ordinary error text, paths and long words without digits', () => {
    const text =
      'error: getting credentials: AccessDenied for /home/user/.aws/credentials (profile default)\n' +
      'supercalifragilisticexpialidocious-and-more-words-here';
    expect(redactSecrets(text)).toBe(text);
  });
});

describe('redactSecrets hides key/value secrets in any case and separator', () => {
  const AWS_KEY = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

  it.each([
    ['aws_secret_access_key = VALUE', `aws_secret_access_key = ${REDACTED}`],
    ['AWS_SECRET_ACCESS_KEY=VALUE', `AWS_SECRET_ACCESS_KEY=${REDACTED}`],
    ['export AWS_SESSION_TOKEN="VALUE"', `export AWS_SESSION_TOKEN="${REDACTED}"`],
    ['password: VALUE', `password: ${REDACTED}`],
    ['Password:VALUE (retrying)', `Password:${REDACTED} (retrying)`],
    ['PASSWORD = VALUE', `PASSWORD = ${REDACTED}`],
    ['token=VALUE&grant_type=refresh_token', `token=${REDACTED}&grant_type=refresh_token`],
    ['secret: VALUE, next', `secret: ${REDACTED}, next`],
    ['client_secret=VALUE', `client_secret=${REDACTED}`],
    ['--oidc-client-secret=VALUE --issuer=x', `--oidc-client-secret=${REDACTED} --issuer=x`],
    ['--client-secret VALUE', `--client-secret ${REDACTED}`],
    ['{"password":"VALUE","user":"bob"}', `{"password":"${REDACTED}","user":"bob"}`],
    ['{"clientSecret": "VALUE"}', `{"clientSecret": "${REDACTED}"}`],
    ["{'refresh_token': 'VALUE'}", `{'refresh_token': '${REDACTED}'}`],
    ['level=debug access_token=VALUE msg=ok', `level=debug access_token=${REDACTED} msg=ok`],
    ['Authorization: VALUE', `Authorization: ${REDACTED}`],
    ['authorization: Negotiate VALUE', `authorization: Negotiate ${REDACTED}`],
    ['Proxy-Authorization: Basic VALUE', `Proxy-Authorization: Basic ${REDACTED}`],
    ['"Authorization":"Bearer VALUE"', `"Authorization":"Bearer ${REDACTED}"`],
    ['Cookie: session=VALUE; theme=dark', `Cookie: ${REDACTED}`],
    ['X-Auth-Token: VALUE', `X-Auth-Token: ${REDACTED}`],
    ['api_key => VALUE', `api_key => ${REDACTED}`],
    [
      'proxy http://user:VALUE@proxy:3128 failed',
      `proxy http://user:${REDACTED}@proxy:3128 failed`,
    ],
  ])('%s', (template, expected) => {
    for (const value of ['x', 'hunter2', AWS_KEY, 'p@ss:w0rd!']) {
      expect(redactSecrets(template.replace('VALUE', value))).toBe(expected);
    }
  });

  it('hides a quoted value with spaces and escaped quotes whole', () => {
    expect(redactSecrets('{"password":"correct horse \\"battery\\" staple"}')).toBe(
      `{"password":"${REDACTED}"}`,
    );
  });

  it('hides a bare AWS secret access key (40 base64 characters)', () => {
    expect(redactSecrets(`signing with ${AWS_KEY} failed`)).toBe(`signing with ${REDACTED} failed`);
  });

  it('keeps prose that merely mentions a secret word', () => {
    const text =
      'error: failed to get token from cache\n' +
      'the refresh token expired; run login again\n' +
      'secrets "db" is forbidden: User "bob" cannot get resource "secrets"';
    expect(redactSecrets(text)).toBe(text);
  });
});

describe('redactSecrets and short known secrets', () => {
  it('hides known secrets of 1 to 3 characters where they stand alone', () => {
    expect(redactSecrets('pin 42 accepted; 420 others, code=42.', ['42'])).toBe(
      `pin ${REDACTED} accepted; 420 others, code=${REDACTED}.`,
    );
    expect(redactSecrets('x', ['x'])).toBe(REDACTED);
    expect(redactSecrets('user "Q" logged in', ['Q'])).toBe(`user "${REDACTED}" logged in`);
  });

  it('hides a known secret in its JSON-escaped form too', () => {
    const secret = 'pa"ss\\word';
    const text = `sent ${JSON.stringify({ note: secret })}`;
    expect(redactSecrets(text, [secret])).toBe(`sent {"note":"${REDACTED}"}`);
  });

  it('does not redact inside the marker of a secret replaced before', () => {
    expect(redactSecrets('abcdef and e', ['abcdef', 'e'])).toBe(`${REDACTED} and ${REDACTED}`);
  });
});

describe('redactSecrets properties (fast-check)', () => {
  /** Filler is lowercase words, so it never contains a generated secret (which has a digit). */
  const word = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'), maxLength: 9 });
  const filler = fc
    .array(fc.tuple(word, fc.constantFrom(' ', ' ', '\n', '. ', ' (', ') ')), { maxLength: 8 })
    .map((parts) => parts.map(([text, gap]) => text + gap).join(''));
  const withDigit = (characters: string, maxLength: number) =>
    fc
      .tuple(
        fc.string({ unit: fc.constantFrom(...characters), maxLength: maxLength - 1 }),
        fc.constantFrom(...'0123456789'),
        fc.nat(),
      )
      .map(([text, digit, at]) => {
        const index = at % (text.length + 1);
        return text.slice(0, index) + digit + text.slice(index);
      });
  const BARE =
    'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!@#$%^*()_+-.~/:=?[]{}|<>';
  const bareSecret = withDigit(BARE, 40);
  const anySecret = withDigit(`${BARE} ,;&"'\\\``, 40);
  const randomCase = (text: string) =>
    fc
      .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
      .map((flips) =>
        [...text].map((c, i) => (flips[i] ? c.toUpperCase() : c.toLowerCase())).join(''),
      );
  const key = fc
    .constantFrom(
      'password',
      'passwd',
      'passphrase',
      'secret',
      'client_secret',
      'clientSecret',
      'client-secret',
      'oidc-client-secret',
      'token',
      'access_token',
      'refresh-token',
      'id_token',
      'x-auth-token',
      'aws_secret_access_key',
      'aws_session_token',
      'api_key',
      'apikey',
      'private_key',
      'authorization',
      'proxy-authorization',
    )
    .chain(randomCase);
  const gap = fc.constantFrom('', ' ', '  ', '\t');
  const separator = fc.constantFrom(':', '=', '=>');

  const unquoted = fc
    .tuple(key, gap, separator, gap, bareSecret)
    .map(([k, g1, s, g2, v]) => ({ text: `${k}${g1}${s}${g2}${v}`, secret: v }));
  const doubleQuoted = fc
    .tuple(key, gap, gap, anySecret)
    .map(([k, g1, g2, v]) => ({ text: `"${k}"${g1}:${g2}${JSON.stringify(v)}`, secret: v }));
  const singleQuoted = fc
    .tuple(
      key,
      gap,
      separator,
      gap,
      anySecret.filter((v) => !v.includes("'")),
    )
    .map(([k, g1, s, g2, v]) => ({ text: `'${k}'${g1}${s}${g2}'${v}'`, secret: v }));
  const flag = fc
    .tuple(key, fc.constantFrom(' ', '='), bareSecret)
    .map(([k, s, v]) => ({ text: `--${k}${s}${v}`, secret: v }));
  const awsKey = fc.string({
    unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'),
    minLength: 40,
    maxLength: 40,
  });
  const bareAwsKey = fc
    .oneof(
      awsKey,
      fc.uint8Array({ minLength: 30, maxLength: 30 }).map((b) => Buffer.from(b).toString('base64')),
    )
    .map((v) => ({ text: ` ${v} `, secret: v }));
  const end = fc.constantFrom('', '\n', ' ', ', ', '; ', '&state=x', ' next');

  it('never lets a generated secret in a key/value form survive', () => {
    fc.assert(
      fc.property(
        filler,
        fc.oneof(unquoted, doubleQuoted, singleQuoted, flag, bareAwsKey),
        end,
        filler,
        (before, { text, secret }, after, more) => {
          const stderr = `${before}${text}${after}${more}`;
          expect(redactSecrets(stderr)).not.toContain(secret);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('never lets a known secret of any length survive where it stands alone', () => {
    const boundary = fc.constantFrom(' ', '\n', ': ', '"', "'", '(', ')', ', ', '=');
    fc.assert(
      fc.property(
        filler,
        boundary,
        withDigit(BARE, 12),
        boundary,
        filler,
        (before, left, secret, right, after) => {
          const stderr = `${before}${left}${secret}${right}${after}`;
          expect(redactSecrets(stderr, [secret])).not.toContain(secret);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
