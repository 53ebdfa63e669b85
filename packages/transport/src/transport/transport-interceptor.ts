import type { Dispatcher } from 'undici';

/**
 * TRANSPORT_INTERCEPTOR_POSITIONS are the named positions of user interceptors in the stack
 * `createTransport` builds, outermost first; see {@link TransportInterceptorPosition}.
 */
export const TRANSPORT_INTERCEPTOR_POSITIONS = ['request', 'decorated', 'wire'] as const;

/**
 * TransportInterceptorPosition says where a {@link TransportInterceptor} sits, named after what
 * it sees (the built-in interceptors, outermost first, are impersonation, user-agent, auth and
 * compression, over the connection pool):
 *
 * - `'request'`: outermost. The request as the caller made it, before impersonation and the
 *   user agent are added; the response the caller gets (gzip decoded, after any 401 replay):
 *   one request, one outcome. For request ids, trace headers, logging what the program asked.
 * - `'decorated'`: above auth. The request with impersonation and user-agent headers, not yet
 *   authenticated (no `Authorization` unless the caller set one); one outcome per request, as at
 *   `'request'`.
 * - `'wire'`: innermost, just above the pool. What goes on the connection: `Authorization`,
 *   `Accept-Encoding: gzip`, every attempt (a 401 and its replay with fresh credentials are two
 *   requests here), the response body as it arrives (still gzip-encoded). It sees credentials:
 *   it must never log `Authorization` (or `Proxy-Authorization`, cookies) nor keep them.
 *
 * There is no position between auth and compression: `'wire'` sees everything it would.
 */
export type TransportInterceptorPosition = (typeof TRANSPORT_INTERCEPTOR_POSITIONS)[number];

/** TRANSPORT_INTERCEPTOR_PRIORITIES order interceptors within one position, outermost first. */
export const TRANSPORT_INTERCEPTOR_PRIORITIES = ['high', 'normal', 'low'] as const;

/**
 * TransportInterceptorPriority orders the interceptors of one position: `'high'` ones are
 * outermost, then `'normal'` (the default), then `'low'`; within one priority, in the order given.
 */
export type TransportInterceptorPriority = (typeof TRANSPORT_INTERCEPTOR_PRIORITIES)[number];

/**
 * TRANSPORT_BUILTIN_INTERCEPTOR_NAMES are the names of the stack's own layers, reserved: a user
 * interceptor may not take one (even when that layer is absent, e.g. `auth` for a user without
 * credentials), so a name means the same thing in every stack.
 */
export const TRANSPORT_BUILTIN_INTERCEPTOR_NAMES = [
  'impersonation',
  'user-agent',
  'auth',
  'compression',
  'pool',
] as const;

/** TransportBuiltinInterceptorName is one of {@link TRANSPORT_BUILTIN_INTERCEPTOR_NAMES}. */
export type TransportBuiltinInterceptorName = (typeof TRANSPORT_BUILTIN_INTERCEPTOR_NAMES)[number];

/**
 * TransportInterceptor is a user interceptor for the transport stack, a plain value (smithy's
 * `stack.add(middleware, { name, step })`): an undici compose interceptor
 * (`dispatch => dispatch`), the unique `name` it is known by (in `transport.stack`, in errors),
 * and the `position` it sits at. Pass them as `createTransport(config, { interceptors })` or
 * register them under `TRANSPORT_INTERCEPTOR` with DI.
 *
 * `interceptor` is called once per transport, when the stack is composed; the dispatch function
 * it returns runs for every request (at `'wire'`, for every attempt), concurrently, on the
 * request path: keep it cheap, call the next `dispatch` exactly once per call, and forward every
 * handler callback it wraps. A duplicate name, or a built-in one, is a `TransportError`
 * `ERR_TRANSPORT_INTERCEPTOR_DUPLICATE` from `createTransport`.
 */
export interface TransportInterceptor {
  readonly name: string;
  readonly position: TransportInterceptorPosition;
  readonly interceptor: Dispatcher.DispatcherComposeInterceptor;
  /** priority orders interceptors within the position (default `'normal'`). */
  readonly priority?: TransportInterceptorPriority | undefined;
}
