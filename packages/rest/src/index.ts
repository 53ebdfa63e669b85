// Requests: the builder and the plain description it produces (no I/O).
export { RequestBuilder } from './request/request-builder.js';
export type {
  ListObject,
  ListPage,
  PagerOptions,
  ParamValue,
  RequestDefaults,
  RequestRunner,
  RestResponse,
  Watch,
  WatchEvent,
  WatchEventType,
  WatchOptions,
} from './request/request-builder.js';
export { requestUrl, withParams } from './request/rest-request.js';
export type { HttpMethod, RequestBody, RestRequest } from './request/rest-request.js';
export { DEFAULT_ACCEPT, JSON_CONTENT_TYPE, PATCH_CONTENT_TYPES } from './request/patch-type.js';
export type { PatchType } from './request/patch-type.js';
export {
  escapePathSegment,
  escapeQueryComponent,
  pathSegmentProblems,
} from './request/path-segment.js';
export { formatGoDuration } from './request/go-duration.js';

// The client: throttle → retry → transport.
export { RestClient } from './client/rest-client.js';
export type { ApplyOptions } from './client/rest-client.js';
export {
  resolveRestClientOptions,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_WATCH_IDLE_TIMEOUT_MS,
} from './client/rest-client-options.js';
export type {
  ResolvedRestClientOptions,
  RestClientOptions,
  ThrottleOption,
} from './client/rest-client-options.js';
export { createRestClient, withKubeconfigPersister } from './client/create-rest-client.js';
export type { CreateRestClientOptions } from './client/create-rest-client.js';
export { RequestExecutor, apiErrorFromResponse } from './client/request-executor.js';
export type { RetryEvent } from './client/request-executor.js';
export { ListPager, DEFAULT_PAGE_SIZE } from './client/list-pager.js';

// Throttle.
export { TokenBucket, DEFAULT_QPS, DEFAULT_BURST } from './throttle/token-bucket.js';
export type { RateLimiter, TokenBucketOptions } from './throttle/token-bucket.js';
export { systemClock, sleep } from './timers/clock.js';
export type { Clock } from './timers/clock.js';

// Retry.
export { RetryPolicy, DEFAULT_MAX_RETRIES, parseRetryAfter } from './retry/retry-policy.js';
export type {
  AttemptOutcome,
  RetryDecision,
  RetryPolicyOptions,
  RetryRequest,
} from './retry/retry-policy.js';
export {
  retryOnConflict,
  retryOnError,
  DEFAULT_RETRY,
  DEFAULT_BACKOFF,
} from './retry/retry-on-conflict.js';
export type { Backoff, RetryOnErrorOptions } from './retry/retry-on-conflict.js';
export { classifyTransportFailure } from './retry/transport-failure.js';
export type { TransportFailureKind } from './retry/transport-failure.js';

// Watch.
export { WatchDecoder, DEFAULT_MAX_EVENT_BYTES } from './watch/watch-decoder.js';
export type { DecodedWatchEvent } from './watch/watch-decoder.js';
export { WatchStream } from './watch/watch-stream.js';
export type { WatchStreamOptions } from './watch/watch-stream.js';

// Warnings.
export {
  WarningLogger,
  NO_WARNINGS,
  parseWarningHeader,
  parseWarningHeaders,
} from './response/warning-handler.js';
export type {
  WarningHandler,
  WarningHeader,
  WarningLoggerOptions,
} from './response/warning-handler.js';

// Errors and Status (also the `@k/rest/errors` entry point, which loads no HTTP client).
export * from './error-exports.js';
