/**
 * The `@k/rest/errors` entry point: `ApiError`, its predicates, each error's codes, the `Status`
 * types and helpers. It loads no HTTP client, so a layer above can recognise and extend
 * @k/rest's errors without paying @k/rest's import cost.
 */
export * from './error-surface.js';
export type {
  ApiErrorCode,
  ApiErrorRequest,
  RequestTimeoutErrorCode,
  WebSocketErrorCode,
} from './errors.js';
export { genericStatus, isStatus, KNOWN_STATUS_REASONS } from './status.js';
export type { GenericStatusRequest, StatusCause, StatusDetails, StatusReason } from './status.js';
