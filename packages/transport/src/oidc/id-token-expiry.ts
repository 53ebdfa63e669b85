import { expectOptionalString, expectString, invalidArgument } from '../checks/argument-checks.js';
import { OidcError } from '../errors.js';

/** ID_TOKEN_EXPIRY_DELTA_MS is client-go's skew: an id-token is used only while `now + 10s < exp`. */
export const ID_TOKEN_EXPIRY_DELTA_MS = 10_000;

/**
 * idTokenExpiry returns the `exp` claim of a JWT in Unix seconds (an integer or a float, truncated
 * to whole seconds as client-go's `jsonTime`; a numeric string is accepted too), or 0 when the
 * claim is absent or null (so the token counts as expired). The signature is not checked: the API
 * server does that. Throws `ERR_TRANSPORT_OIDC_INVALID_ID_TOKEN` for something that is not three dot-separated
 * parts (`id-token is not a valid JWT`) or whose payload is not base64url JSON with a numeric
 * `exp` (`parsing claims: …`). Messages never quote the token. Pure.
 */
export function idTokenExpiry(idToken: string, issuer?: string): number {
  expectString(idToken, 'idTokenExpiry', 'idToken', true);
  expectOptionalString(issuer, 'idTokenExpiry', 'issuer');
  const fail = (message: string, cause?: unknown): never => {
    throw new OidcError('ERR_TRANSPORT_OIDC_INVALID_ID_TOKEN', prefix(issuer, message), {
      issuer,
      cause,
    });
  };
  const parts = idToken.split('.');
  if (parts.length !== 3) return fail('id-token is not a valid JWT');
  const payload = parts[1] ?? '';
  // client-go decodes with RawURLEncoding: no padding, URL alphabet only.
  if (!/^[A-Za-z0-9_-]*$/.test(payload) || payload.length % 4 === 1) {
    return fail('parsing claims: id-token payload is not unpadded base64url');
  }
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch (error) {
    return fail('parsing claims: id-token payload is not JSON', error);
  }
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) {
    return fail('parsing claims: id-token payload is not a JSON object');
  }
  const exp = (claims as Record<string, unknown>).exp;
  if (exp === undefined || exp === null) return 0;
  const value =
    typeof exp === 'string' && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(exp) ? Number(exp) : exp;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    return fail('parsing claims: exp is not a number');
  }
  return Math.trunc(value);
}

/**
 * isIdTokenValid reports whether `idToken` may still be used at `nowMs`: client-go's
 * `now + 10s < exp`. Throws like {@link idTokenExpiry}.
 */
export function isIdTokenValid(idToken: string, nowMs: number, issuer?: string): boolean {
  expectString(idToken, 'isIdTokenValid', 'idToken', true);
  if (typeof nowMs !== 'number' || !Number.isFinite(nowMs)) {
    throw invalidArgument('isIdTokenValid', 'nowMs', 'the current time in milliseconds', nowMs);
  }
  return nowMs + ID_TOKEN_EXPIRY_DELTA_MS < idTokenExpiry(idToken, issuer) * 1000;
}

function prefix(issuer: string | undefined, message: string): string {
  return issuer ? `oidc issuer ${issuer}: ${message}` : `oidc: ${message}`;
}
