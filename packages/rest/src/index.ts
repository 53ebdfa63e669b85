// @k/rest: Kubernetes REST requests with throttling, retries, watches and typed errors. Secondary
// surfaces have their own subpaths: `@k/rest/request` (request descriptions without a client),
// `@k/rest/retry` (what a custom retry policy decides on), `@k/rest/errors` (the errors and
// `Status` helpers alone, without an HTTP client), `@k/rest/testing` and `@k/rest/di`.

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

// Requests: the fluent builder and the plain description it produces (no I/O).
export { RequestBuilder } from './request/request-builder.js';
export type { ParamValue } from './request/request-builder.js';
export type { HttpMethod, RequestBody, RestRequest } from './request/rest-request.js';
export type { PatchType } from './request/patch-type.js';
export type { RestResponse } from './response/rest-response.js';
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
export { ProtobufSchema } from './protobuf/protobuf-schema.js';
export type { SchemaTable } from './protobuf/protobuf-schema.js';
export { registerProtobufSchema } from './protobuf/protobuf-object.js';

// WebSockets (exec, attach, port-forward), opened through the transport.
export { WebSocketConnection } from './websocket/websocket-connection.js';
export type {
  WebSocketClose,
  WebSocketConnectionOptions,
} from './websocket/websocket-connection.js';
export type { WebSocketOptions } from './websocket/open-websocket.js';

// Throttle and retry.
export { TokenBucket } from './throttle/token-bucket.js';
export type { RateLimiter, TokenBucketOptions } from './throttle/token-bucket.js';
export { systemClock, sleep } from './timers/clock.js';
export type { Clock } from './timers/clock.js';
export { linkSignals } from '@k/transport';
export type { LinkedSignal, LinkedSignalOptions } from '@k/transport';
export { RetryPolicy } from './retry/retry-policy.js';
export type { RetryPolicyOptions } from './retry/retry-policy.js';
export type { RetryEvent } from './client/request-executor.js';
export {
  retryOnConflict,
  retryOnError,
  DEFAULT_RETRY,
  DEFAULT_BACKOFF,
} from './retry/retry-on-conflict.js';
export type { Backoff, RetryOnErrorOptions } from './retry/retry-on-conflict.js';

// Warnings.
export { WarningLogger, NO_WARNINGS } from './response/warning-handler.js';
export type {
  WarningHandler,
  WarningHeader,
  WarningLoggerOptions,
} from './response/warning-handler.js';

// Errors and Status (with the Status helpers: `@k/rest/errors`).
export * from './error-surface.js';
