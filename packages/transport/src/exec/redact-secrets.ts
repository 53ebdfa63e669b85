/** REDACTED replaces every secret {@link redactSecrets} finds. */
export const REDACTED = '[redacted]';

const PEM_PRIVATE_KEY =
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g;
const AUTHORIZATION = /\b(Bearer|Basic)\s+[^\s"',;]+/gi;
const JWT = /\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;
const LONG_TOKEN = /[A-Za-z0-9_+=-]{32,}/g;

/**
 * redactSecrets replaces what may be a credential in `text` (a plugin's stderr) with
 * `[redacted]`, so it can go into an error message: every string of `knownSecrets` (values the
 * plugin returned before, `exec.env` values) of 4 or more characters, PEM private-key blocks,
 * `Bearer …`/`Basic …` values, JWTs, and any run of 32 or more token characters
 * (`A-Z a-z 0-9 _ + = -`) that mixes letters and digits (random tokens, hex keys; this also hides
 * UUIDs and hashes, a price paid for never leaking an unknown token). Pure.
 */
export function redactSecrets(text: string, knownSecrets: Iterable<string> = []): string {
  let result = text;
  const known = [...new Set(knownSecrets)].filter((secret) => secret.length >= 4);
  // Longest first, so a secret containing another is replaced whole.
  known.sort((left, right) => right.length - left.length);
  for (const secret of known) result = result.split(secret).join(REDACTED);
  return result
    .replace(PEM_PRIVATE_KEY, REDACTED)
    .replace(AUTHORIZATION, (_match, scheme: string) => `${scheme} ${REDACTED}`)
    .replace(JWT, REDACTED)
    .replace(LONG_TOKEN, (run) => (/[0-9]/.test(run) && /[A-Za-z]/.test(run) ? REDACTED : run));
}
