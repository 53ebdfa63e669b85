// @k/rest: Kubernetes REST requests with throttling, retries, watches and typed errors. Secondary
// surfaces have their own subpaths: `@k/rest/request` (request descriptions without a client),
// `@k/rest/retry` (what a custom retry policy decides on), `@k/rest/throttle` (the token bucket,
// your own rate limiter), `@k/rest/warnings` (the server's warnings), `@k/rest/websocket` (the
// connection exec, attach and port-forward are built on), `@k/rest/protobuf` (schemas of more
// kinds), `@k/rest/errors` (the errors and `Status` helpers alone, without an HTTP client, and
// each error's codes), `@k/rest/testing` and `@k/rest/di`.

// The client: throttle → retry → transport.
export { createRestClient } from './client/create-rest-client.js';
export type { CreateRestClientOptions } from './client/create-rest-client.js';
export { RestClient } from './client/rest-client.js';
export type { ApplyPatchOptions } from './client/rest-client.js';
export type {
  ResolvedRestClientOptions,
  RestClientOptions,
  ThrottleOption,
} from './client/rest-client-options.js';
export type { RetryEvent, ThrottleEvent } from './client/request-executor.js';

// Requests: the fluent builder (the descriptions it produces: `@k/rest/request`).
export { RequestBuilder } from './request/request-builder.js';
export type { ListObject } from './response/list-object.js';

// Paging and watching.
export type { ListPage, ListPager, PagerOptions } from './pager/list-pager.js';
export type {
  Watch,
  WatchEncoding,
  WatchEvent,
  WatchEventType,
  WatchStreamOptions,
} from './watch/watch.js';

// Retry, and waiting.
export { RetryPolicy } from './retry/retry-policy.js';
export type { RetryPolicyOptions } from './retry/retry-policy.js';
export {
  retryOnConflict,
  retryOnError,
  DEFAULT_RETRY,
  DEFAULT_BACKOFF,
} from './retry/retry-on-conflict.js';
export type { Backoff, RetryOnErrorOptions } from './retry/retry-on-conflict.js';
export { systemClock, sleep } from './timers/clock.js';
export type { Clock } from './timers/clock.js';
export { linkSignals } from '@k/transport';

// Errors and Status (with each error's codes and the Status helpers: `@k/rest/errors`).
export * from './error-surface.js';
