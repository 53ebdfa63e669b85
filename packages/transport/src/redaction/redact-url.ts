/** redactUrl renders a URL for messages: the password becomes `xxxxx` (Go's `Redacted`). */
export function redactUrl(url: URL): string {
  if (!url.password) return url.href;
  const copy = new URL(url.href);
  copy.password = 'xxxxx';
  return copy.href;
}

/**
 * redactUrlText does what {@link redactUrl} does for text that may not be a valid URL:
 * whatever follows the first `:` of the user information (up to the last `@`) becomes `xxxxx`.
 */
export function redactUrlText(text: string): string {
  const schemeEnd = text.indexOf('://');
  const start = schemeEnd < 0 ? 0 : schemeEnd + 3;
  const at = text.lastIndexOf('@');
  if (at < start) return text;
  const userInformation = text.slice(start, at);
  const colon = userInformation.indexOf(':');
  if (colon < 0) return text;
  return `${text.slice(0, start)}${userInformation.slice(0, colon)}:xxxxx${text.slice(at)}`;
}
