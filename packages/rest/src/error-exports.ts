/**
 * The `@k/rest/errors` entry point: `ApiError`, its predicates and the `Status` types. It loads
 * no HTTP client, so a layer above can recognise and extend @k/rest's errors without paying
 * @k/rest's import cost.
 */
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
export type {
  ApiErrorCode,
  ApiErrorRequest,
  KRestErrorCode,
  RequestTimeoutErrorCode,
  WebSocketErrorCode,
} from './errors.js';
export { genericStatus, isStatus, KNOWN_STATUS_REASONS } from './status.js';
export type {
  GenericStatusRequest,
  Status,
  StatusCause,
  StatusDetails,
  StatusReason,
} from './status.js';
