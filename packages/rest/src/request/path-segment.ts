/**
 * pathSegmentProblems returns why `segment` cannot be a name, namespace, resource or subresource
 * path segment (apimachinery's `IsValidPathSegmentName`): it may not be `.` or `..` and may not
 * contain `/` or `%`. An empty list means it is valid.
 */
export function pathSegmentProblems(segment: string): string[] {
  if (segment === '.' || segment === '..') return [`may not be '${segment}'`];
  const problems: string[] = [];
  if (segment.includes('/')) problems.push("may not contain '/'");
  if (segment.includes('%')) problems.push("may not contain '%'");
  return problems;
}

const PLAIN_SEGMENT = /^[A-Za-z0-9\-._~]*$/;
const UNESCAPED_IN_PATH = /%(?:24|26|2B|2C|3A|3B|3D|40)/g;
const ESCAPED_IN_PATH = /[!'()*]/g;

/**
 * escapePathSegment escapes one path segment as Go's `url.URL` does: unreserved characters and
 * `$&+,:;=@` stay, everything else is percent-encoded (space → `%20`, `?` → `%3F`, `#` → `%23`).
 */
export function escapePathSegment(segment: string): string {
  if (PLAIN_SEGMENT.test(segment)) return segment;
  return encodeURIComponent(segment)
    .replace(UNESCAPED_IN_PATH, (escaped) => decodeURIComponent(escaped))
    .replace(
      ESCAPED_IN_PATH,
      (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
    );
}

const PLAIN_QUERY = /^[A-Za-z0-9\-._~]*$/;

/**
 * escapeQueryComponent escapes a query key or value as Go's `url.QueryEscape`: unreserved
 * characters stay, a space becomes `+`, everything else is percent-encoded.
 */
export function escapeQueryComponent(value: string): string {
  if (PLAIN_QUERY.test(value)) return value;
  return encodeURIComponent(value)
    .replace(/%20/g, '+')
    .replace(
      ESCAPED_IN_PATH,
      (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
    );
}
