import type { Readable } from 'node:stream';
import { escapeQueryComponent } from './path-segment.js';

/** HttpMethod is the verb of a {@link RestRequest}. */
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * RequestBody is what a request sends: text or bytes are sent as they are and may be replayed by a
 * retry; a `Readable` is streamed once and such a request is never retried (client-go's rule for
 * `io.Reader` bodies). Objects given to the builder are encoded to JSON text when it builds.
 */
export type RequestBody = string | Uint8Array | Readable;

/**
 * RestRequest is the plain description a {@link RequestBuilder} produces: no I/O has happened and
 * nothing refers back to the client. `path` is escaped and starts with the server's base path;
 * `query` is `''` or starts with `?` (keys sorted, values form-encoded, as Go's `url.Values`).
 */
export interface RestRequest {
  readonly method: HttpMethod;
  readonly path: string;
  readonly query: string;
  /** headers holds `accept` and, with a body, `content-type` (lowercase names). */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: RequestBody | undefined;
  /**
   * timeoutMs is the request's own timeout: it bounds every attempt and wait of `execute()` and
   * is also sent as the server-side `timeout` parameter. Undefined uses the client's default.
   */
  readonly timeoutMs: number | undefined;
  readonly signal: AbortSignal | undefined;
  /** maxRetries overrides the retry policy's limit for this request. */
  readonly maxRetries: number | undefined;
  /** group, resource and name are what the request is about, for error messages ('' if unset). */
  readonly group: string;
  readonly resource: string;
  readonly name: string;
}

/** requestUrl returns the request's path and query, e.g. `/api/v1/namespaces/ns/pods?limit=5`. */
export function requestUrl(request: RestRequest): string {
  return request.query === '' ? request.path : `${request.path}${request.query}`;
}

/**
 * withParams returns a copy of `request` whose query has `params` instead of any existing values
 * of the same keys (the pager uses it for `limit` and `continue`). Undefined values remove a key.
 */
export function withParams(
  request: RestRequest,
  params: Readonly<Record<string, string | undefined>>,
): RestRequest {
  const keys = Object.keys(params);
  const kept =
    request.query === ''
      ? []
      : request.query
          .slice(1)
          .split('&')
          .filter((pair) => !keys.includes(decodeURIComponent(pair.split('=', 1)[0] ?? '')));
  for (const key of keys) {
    const value = params[key];
    if (value !== undefined)
      kept.push(`${escapeQueryComponent(key)}=${escapeQueryComponent(value)}`);
  }
  kept.sort((a, b) => {
    const keyA = a.split('=', 1)[0] ?? '';
    const keyB = b.split('=', 1)[0] ?? '';
    return keyA < keyB ? -1 : keyA > keyB ? 1 : 0;
  });
  return { ...request, query: kept.length === 0 ? '' : `?${kept.join('&')}` };
}
