import { describe, expect, it } from 'vitest';
import { REDACTED, redactSecrets } from './redact-secrets.js';

describe('redactSecrets', () => {
  it('replaces known secrets wherever they appear, longest first', () => {
    expect(redactSecrets('token=abcd and abcdef!', ['abcd', 'abcdef'])).toBe(
      `token=${REDACTED} and ${REDACTED}!`,
    );
  });

  it('ignores known secrets shorter than 4 characters', () => {
    expect(redactSecrets('a b c', ['a'])).toBe('a b c');
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
