/** REDACTED replaces every secret {@link redactSecrets} finds. */
export const REDACTED = '[redacted]';

/** Known secrets shorter than this are replaced only where they stand alone (see below). */
const SHORT_SECRET_LENGTH = 4;

const PEM_PRIVATE_KEY =
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g;

/**
 * KEY_SEPARATOR finds a key and its separator: `"key":`, `'key' =`, `key:`, `KEY=`, `key =>`,
 * `--flag=` or `--flag ` (blanks allowed around the separator). Groups: 2 a quoted key, 3 an
 * unquoted key or flag with `=`, 4 a flag followed by a blank. A key starts only where no key
 * character precedes it, so a long run of key characters is tried once, not from every offset.
 */
const KEY_SEPARATOR =
  /(?<![A-Za-z0-9_.-])(?:(["'])([A-Za-z0-9_.-]+)\1[ \t]*(?:=>|[:=])|([A-Za-z0-9_.-]+)[ \t]*(?:=>|[:=])|--([A-Za-z0-9_.-]+)[ \t]+)[ \t]*/g;
/** The words that make a key a secret's name (anywhere in the name, any case). */
const SECRET_KEY =
  /pass(?:word|wd|phrase)|secret|token|authorization|api[-_]?key|private[-_]?key|cookie/i;
/** Values of these keys are whole header values: unquoted, they run to the end of the line. */
const HEADER_KEY = /(?:authorization|cookie)$/i;
/** Authorization schemes kept in front of a redacted header value (they are not secret). */
const SCHEME = /^(?:Basic|Bearer|Digest|Negotiate|NTLM|Token|DPoP|AWS4-HMAC-SHA256)[ \t]+(?=\S)/i;
/** Where an unquoted value ends. */
const BARE_VALUE_END = /[\s,;&"']/;

/** A URL's `user:password@`; the scheme starts where no scheme character precedes it. */
const URL_PASSWORD = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)[^\s/]*@/gi;
const AUTHORIZATION = /\b(Bearer|Basic)\s+(?!\[redacted\])[^\s"',;]+/gi;
const JWT = /\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;
/** A base64 run of 32+ characters, `/` and `+` included, alone. */
const BASE64_RUN = /(?<![A-Za-z0-9+/=])[A-Za-z0-9+/]{32,}={0,2}(?![A-Za-z0-9+/=])/g;
/** AWS secret access keys are 40 base64 characters: any such run alone is hidden. */
const AWS_SECRET_KEY_LENGTH = 40;
const LONG_TOKEN = /[A-Za-z0-9_+=-]{32,}/g;

/**
 * redactSecrets replaces what may be a credential in `text` (a plugin's stderr) with
 * `[redacted]`, so it can go into an error message. It hides:
 * - every string of `knownSecrets` (values the plugin returned before, `exec.env` values), also
 *   in its JSON-escaped form. Those of 4 or more characters are replaced wherever they appear;
 *   shorter ones only where they stand alone (no letter or digit right before or after):
 *   replacing every `1` inside words and numbers would leave nothing to read, and a one to three
 *   character fragment of a longer word gives away no more than a guess would;
 * - the value of every `key: value`, `key=value`, `key => value`, `"key": "value"`,
 *   `--key value` pair whose key names a secret — it contains `password`, `passwd`,
 *   `passphrase`, `secret`, `token`, `authorization`, `api_key`, `private_key` or `cookie`, in
 *   any case (`client_secret`, `AWS_SECRET_ACCESS_KEY`, `X-Auth-Token`, `oidc-client-secret`).
 *   A quoted value is hidden whole (an unterminated one to the end of the line); an unquoted
 *   one ends at white space, `,`, `;`, `&` or a quote, except after `Authorization`/`Cookie`
 *   keys where it runs to the end of the line (a known scheme such as `Bearer` is kept);
 * - PEM private-key blocks, the password of `scheme://user:password@host`, `Bearer …`/`Basic …`
 *   values and JWTs;
 * - any run of exactly 40 base64 characters (`A-Z a-z 0-9 + /`, an AWS secret access key), base64
 *   runs of 32 or more that mix upper case, lower case and digits, and any run of 32 or more
 *   token characters (`A-Z a-z 0-9 _ + = -`) that mixes letters and digits (random tokens, hex
 *   keys; this also hides UUIDs and hashes, a price paid for never leaking an unknown token).
 * Pure, and linear in the length of `text` (no pattern backtracks over a long run).
 */
export function redactSecrets(text: string, knownSecrets: Iterable<string> = []): string {
  let result = text.replace(PEM_PRIVATE_KEY, REDACTED);
  result = replaceKnownSecrets(result, knownSecrets);
  result = replaceKeyValues(result);
  return result
    .replace(URL_PASSWORD, (_match, head: string) => `${head}${REDACTED}@`)
    .replace(AUTHORIZATION, (_match, scheme: string) => `${scheme} ${REDACTED}`)
    .replace(JWT, REDACTED)
    .replace(BASE64_RUN, (run) =>
      run.length === AWS_SECRET_KEY_LENGTH ||
      (/[A-Z]/.test(run) && /[a-z]/.test(run) && /[0-9]/.test(run))
        ? REDACTED
        : run,
    )
    .replace(LONG_TOKEN, (run) => (/[0-9]/.test(run) && /[A-Za-z]/.test(run) ? REDACTED : run));
}

/** replaceKnownSecrets replaces all known secrets in one pass, longest first, never inside the marker. */
function replaceKnownSecrets(text: string, knownSecrets: Iterable<string>): string {
  const forms = new Set<string>();
  for (const secret of knownSecrets) {
    if (typeof secret !== 'string' || secret === '') continue;
    forms.add(secret);
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret) forms.add(escaped);
  }
  if (forms.size === 0) return text;
  const alternatives = [...forms]
    .sort((left, right) => right.length - left.length)
    .map((secret) => {
      const pattern = escapeRegExp(secret);
      if (secret.length >= SHORT_SECRET_LENGTH) return pattern;
      // Alone: no letter or digit right before or after (an edge that is not one is free).
      const before = /^[A-Za-z0-9]/.test(secret) ? '(?<![A-Za-z0-9])' : '';
      const after = /[A-Za-z0-9]$/.test(secret) ? '(?![A-Za-z0-9])' : '';
      return `${before}${pattern}${after}`;
    });
  // The marker is matched first and kept, so no secret is found inside an earlier replacement.
  const pattern = new RegExp(`${escapeRegExp(REDACTED)}|${alternatives.join('|')}`, 'g');
  return text.replace(pattern, REDACTED);
}

/** replaceKeyValues hides the values of secret-named keys; values of other keys are searched on. */
function replaceKeyValues(text: string): string {
  let output = '';
  let copied = 0;
  KEY_SEPARATOR.lastIndex = 0;
  for (let match = KEY_SEPARATOR.exec(text); match; match = KEY_SEPARATOR.exec(text)) {
    const key = match[2] ?? match[3] ?? match[4] ?? '';
    if (!SECRET_KEY.test(key)) continue;
    const valueStart = match.index + match[0].length;
    const value = valueAt(text, valueStart, HEADER_KEY.test(key) && match[4] === undefined);
    if (!value) continue;
    output += text.slice(copied, value.start) + value.replacement;
    copied = value.end;
    KEY_SEPARATOR.lastIndex = value.end;
  }
  return copied === 0 ? text : output + text.slice(copied);
}

/** valueAt finds the value that starts at `start` and what replaces it (undefined: none). */
function valueAt(
  text: string,
  start: number,
  header: boolean,
): { start: number; end: number; replacement: string } | undefined {
  const quote = text[start];
  if (quote === '"' || quote === "'") {
    // The value ends at the closing quote; an unterminated one hides the rest of the line.
    let end = start + 1;
    for (; end < text.length && text[end] !== quote && !isLineBreak(text[end]); end++) {
      if (quote === '"' && text[end] === '\\' && !isLineBreak(text[end + 1])) end++;
    }
    end = Math.min(end, text.length);
    return {
      start: start + 1,
      end,
      replacement: header ? keepScheme(text.slice(start + 1, end)) : REDACTED,
    };
  }
  if (header) {
    const lineEnd = endOfLine(text, start);
    if (start >= lineEnd) return undefined;
    return { start, end: lineEnd, replacement: keepScheme(text.slice(start, lineEnd)) };
  }
  let end = start;
  while (end < text.length && !BARE_VALUE_END.test(text[end] as string)) end++;
  return end === start ? undefined : { start, end, replacement: REDACTED };
}

function endOfLine(text: string, from: number): number {
  let end = from;
  while (end < text.length && !isLineBreak(text[end])) end++;
  return end;
}

function isLineBreak(character: string | undefined): boolean {
  return character === '\n' || character === '\r';
}

/** keepScheme redacts a header value but keeps a known scheme in front (`Bearer [redacted]`). */
function keepScheme(value: string): string {
  const scheme = SCHEME.exec(value)?.[0] ?? '';
  return `${scheme}${REDACTED}`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
