import { describe, expect, it } from 'vitest';
import { unsignedJwt } from '../../e2e/fixtures/oidc-issuer.js';
import { OidcError } from '../errors.js';
import { idTokenExpiry, isIdTokenValid } from './id-token-expiry.js';

const now = Date.UTC(2026, 0, 1);
const nowSeconds = now / 1000;

const failure = (run: () => unknown): OidcError => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(OidcError);
    expect((error as OidcError).code).toBe('ERR_TRANSPORT_OIDC_INVALID_ID_TOKEN');
    return error as OidcError;
  }
  throw new Error('expected a failure');
};

describe('idTokenExpiry and isIdTokenValid', () => {
  it('E3: exp = now + 1h is valid', () => {
    expect(isIdTokenValid(unsignedJwt({ exp: nowSeconds + 3600 }), now)).toBe(true);
  });

  it('E4: exp = now - 1h is expired', () => {
    expect(isIdTokenValid(unsignedJwt({ exp: nowSeconds - 3600 }), now)).toBe(false);
  });

  it('uses the token only while now + 10s < exp', () => {
    expect(isIdTokenValid(unsignedJwt({ exp: nowSeconds + 11 }), now)).toBe(true);
    expect(isIdTokenValid(unsignedJwt({ exp: nowSeconds + 10 }), now)).toBe(false);
  });

  it('E5: a non-numeric exp is an error', () => {
    const error = failure(() => idTokenExpiry(unsignedJwt({ exp: 'foobar' }), 'https://issuer'));
    expect(error.message).toBe('oidc issuer https://issuer: parsing claims: exp is not a number');
  });

  it('E6: something that is not a JWT is an error that does not quote it', () => {
    const error = failure(() => idTokenExpiry('notanidtoken', 'https://issuer'));
    expect(error.message).toBe('oidc issuer https://issuer: id-token is not a valid JWT');
    expect(error.issuer).toBe('https://issuer');
    const payload = failure(() => idTokenExpiry('a.secret-%%%.c'));
    expect(payload.message).toBe(
      'oidc: parsing claims: id-token payload is not unpadded base64url',
    );
    expect(payload.message).not.toContain('secret');
    const padded = Buffer.from('{"exp":12}').toString('base64');
    expect(failure(() => idTokenExpiry(`a.${padded}.c`)).message).toMatch(/not unpadded base64url/);
    expect(
      failure(() => idTokenExpiry(`a.${Buffer.from('[1]').toString('base64url')}.c`)).message,
    ).toMatch(/not a JSON object/);
  });

  it('E7: integer and float seconds decode to the same Unix second', () => {
    expect(idTokenExpiry(unsignedJwt({ exp: 1493851263 }))).toBe(1493851263);
    expect(idTokenExpiry(unsignedJwt({ exp: 1.493851263e9 }))).toBe(1493851263);
    expect(idTokenExpiry(unsignedJwt({ exp: 1493851263.9 }))).toBe(1493851263);
  });

  it('a missing exp counts as expired', () => {
    expect(idTokenExpiry(unsignedJwt({ sub: 'x' }))).toBe(0);
    expect(isIdTokenValid(unsignedJwt({ sub: 'x' }), now)).toBe(false);
  });
});
