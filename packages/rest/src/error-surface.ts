// The errors, their predicates, the union of their codes and `Status`: in the root and in
// `@k/rest/errors` alike.
export {
  ApiError,
  ConnectionError,
  RequestBuildError,
  RequestTimeoutError,
  ResponseDecodeError,
  RestConfigurationError,
  RestUsageError,
  WatchDecodeError,
  WebSocketError,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isForbidden,
  isGone,
  isInternalError,
  isInvalid,
  isNotFound,
  isResourceExpired,
  isServerTimeout,
  isServiceUnavailable,
  isTimeout,
  isTooManyRequests,
  isUnauthorized,
  reasonForError,
  suggestsClientDelay,
} from './errors.js';
export type { KRestErrorCode } from './errors.js';
export type { Status } from './status.js';
