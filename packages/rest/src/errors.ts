import { KubeError } from '@k/config/errors';
import {
  KNOWN_STATUS_REASONS,
  type Status,
  type StatusDetails,
  type StatusReason,
} from './status.js';

/**
 * RequestBuildError is the first mistake made while building a request (a namespace set twice, an
 * empty name, a segment containing `/`), recorded by the builder and thrown when the request runs,
 * before anything is sent. Messages are client-go's, e.g. `resource name may not be empty`.
 */
export class RequestBuildError extends KubeError {
  static override readonly brand: symbol = Symbol.for('@k/rest.RequestBuildError');
  declare readonly code: 'ERR_REST_REQUEST_INVALID';

  constructor(message: string) {
    super('ERR_REST_REQUEST_INVALID', message);
  }
}

/** ApiErrorRequest names the request an {@link ApiError} answered (no query, no headers). */
export interface ApiErrorRequest {
  method: string;
  path: string;
}

/** The stable codes of {@link ApiError}. */
export type ApiErrorCode =
  /** The server answered with a `Status` body saying `Failure`. */
  | 'ERR_REST_API_STATUS'
  /** The server answered non-2xx without a `Status` body (a proxy's HTML page, an empty body). */
  | 'ERR_REST_API_UNEXPECTED_RESPONSE';

/**
 * ApiError is a failed API call: the server's `Status` (reason, code, message, details with causes
 * and `retryAfterSeconds`). When the body was not a Status (`ERR_REST_API_UNEXPECTED_RESPONSE`), the
 * Status is the one client-go builds from the HTTP code, so `isNotFound` and friends still work.
 * `message` is the Status message; it never holds a header value.
 */
export class ApiError extends KubeError {
  static override readonly brand: symbol = Symbol.for('@k/rest.ApiError');
  declare readonly code: ApiErrorCode;
  /** status is the decoded (or, for unexpected responses, synthesized) `Status`. */
  readonly status: Status;
  /** statusCode is `status.code` (which may differ from the HTTP code), else the HTTP code. */
  readonly statusCode: number;
  /** httpStatusCode is the HTTP status code of the response (0 for watch ERROR events). */
  readonly httpStatusCode: number;
  readonly reason: StatusReason;
  readonly details: StatusDetails | undefined;
  /** retryAfterSeconds is `details.retryAfterSeconds`, else the response's `Retry-After`. */
  readonly retryAfterSeconds: number | undefined;
  readonly request: ApiErrorRequest | undefined;
  /** contentType is the response's Content-Type (for unexpected responses). */
  readonly contentType: string | undefined;

  constructor(
    status: Status,
    options: {
      httpStatusCode?: number | undefined;
      request?: ApiErrorRequest | undefined;
      retryAfterSeconds?: number | undefined;
      unexpected?: boolean | undefined;
      contentType?: string | undefined;
      cause?: unknown;
    } = {},
  ) {
    const statusCode = status.code ?? options.httpStatusCode ?? 0;
    const message =
      status.message !== undefined && status.message !== ''
        ? status.message
        : `the server responded with the status code ${statusCode}`;
    super(
      options.unexpected ? 'ERR_REST_API_UNEXPECTED_RESPONSE' : 'ERR_REST_API_STATUS',
      message,
      {
        cause: options.cause,
      },
    );
    this.status = status;
    this.statusCode = statusCode;
    this.httpStatusCode = options.httpStatusCode ?? 0;
    this.reason = status.reason ?? '';
    this.details = status.details;
    this.retryAfterSeconds =
      status.details?.retryAfterSeconds !== undefined && status.details.retryAfterSeconds > 0
        ? status.details.retryAfterSeconds
        : options.retryAfterSeconds;
    this.request = options.request;
    this.contentType = options.contentType;
  }
}

/**
 * ResponseDecodeError is a successful (2xx) response whose body could not be decoded: not JSON
 * (an HTML page from a proxy), truncated JSON, or empty where an object was expected. It carries
 * the status code and content type, never the body.
 */
export class ResponseDecodeError extends KubeError {
  static override readonly brand: symbol = Symbol.for('@k/rest.ResponseDecodeError');
  declare readonly code: 'ERR_REST_RESPONSE_DECODE';
  readonly statusCode: number;
  readonly contentType: string | undefined;
  readonly request: ApiErrorRequest;

  constructor(
    message: string,
    options: {
      statusCode: number;
      contentType?: string | undefined;
      request: ApiErrorRequest;
      cause?: unknown;
    },
  ) {
    super('ERR_REST_RESPONSE_DECODE', message, { cause: options.cause });
    this.statusCode = options.statusCode;
    this.contentType = options.contentType;
    this.request = options.request;
  }
}

/** The stable codes of {@link RequestTimeoutError}. */
export type RequestTimeoutErrorCode =
  /** The request (all its attempts and waits together) did not finish within its timeout. */
  | 'ERR_REST_REQUEST_TIMEOUT'
  /** A watch received nothing (no event, no bookmark) for its idle timeout. */
  | 'ERR_REST_WATCH_IDLE_TIMEOUT';

/**
 * RequestTimeoutError is the client giving up on time: the request timeout (which covers every
 * attempt, the throttle and retry waits) or a watch's idle timeout. The connection was closed.
 */
export class RequestTimeoutError extends KubeError {
  static override readonly brand: symbol = Symbol.for('@k/rest.RequestTimeoutError');
  declare readonly code: RequestTimeoutErrorCode;
  readonly timeoutMs: number;
  readonly request: ApiErrorRequest;

  constructor(code: RequestTimeoutErrorCode, request: ApiErrorRequest, timeoutMs: number) {
    super(
      code,
      code === 'ERR_REST_WATCH_IDLE_TIMEOUT'
        ? `watch ${request.path} received nothing for ${timeoutMs}ms`
        : `${request.method.toLowerCase()} ${request.path} did not complete within ${timeoutMs}ms`,
    );
    this.timeoutMs = timeoutMs;
    this.request = request;
  }
}

/**
 * ConnectionError is a transport failure: refused, reset, closed mid-body, a socket timeout.
 * `attempts` counts the attempts made; `mayHaveReachedServer` is false only when the request
 * certainly never left (connection refused, DNS), which is what decides whether it was replayed.
 * The cause is the underlying (undici or socket) error.
 */
export class ConnectionError extends KubeError {
  static override readonly brand: symbol = Symbol.for('@k/rest.ConnectionError');
  declare readonly code: 'ERR_REST_CONNECTION';
  readonly request: ApiErrorRequest;
  readonly attempts: number;
  readonly mayHaveReachedServer: boolean;

  constructor(
    message: string,
    options: {
      request: ApiErrorRequest;
      attempts: number;
      mayHaveReachedServer: boolean;
      cause?: unknown;
    },
  ) {
    super('ERR_REST_CONNECTION', message, { cause: options.cause });
    this.request = options.request;
    this.attempts = options.attempts;
    this.mayHaveReachedServer = options.mayHaveReachedServer;
  }
}

/**
 * WatchDecodeError is a watch frame that is not a valid event: not JSON, or an unknown type
 * (`got invalid watch event type: FOO`, client-go's message). The watch is closed.
 */
export class WatchDecodeError extends KubeError {
  static override readonly brand: symbol = Symbol.for('@k/rest.WatchDecodeError');
  declare readonly code: 'ERR_REST_WATCH_DECODE';

  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_REST_WATCH_DECODE', message, options);
  }
}

/** RestUsageError is a use of a @k/rest object its contract rules out (a watch iterated twice). */
export class RestUsageError extends KubeError {
  static override readonly brand: symbol = Symbol.for('@k/rest.RestUsageError');
  declare readonly code: 'ERR_REST_WATCH_REUSED';

  constructor(code: 'ERR_REST_WATCH_REUSED', message: string) {
    super(code, message);
  }
}

/** RestConfigurationError is an invalid option of a client, throttle or retry policy. */
export class RestConfigurationError extends KubeError {
  static override readonly brand: symbol = Symbol.for('@k/rest.RestConfigurationError');
  declare readonly code: 'ERR_REST_CONFIGURATION';

  constructor(message: string) {
    super('ERR_REST_CONFIGURATION', message);
  }
}

/** The stable codes of {@link WebSocketError}. */
export type WebSocketErrorCode =
  /** The server answered the upgrade with 101 but broke the handshake (accept key, subprotocol). */
  | 'ERR_REST_WEBSOCKET_HANDSHAKE'
  /** The server sent a frame RFC 6455 forbids, or one over the size limit. */
  | 'ERR_REST_WEBSOCKET_PROTOCOL'
  /** The connection ended without a close handshake, or the server closed it with an error code. */
  | 'ERR_REST_WEBSOCKET_CLOSED'
  /** The server sent nothing for `pongTimeoutMs` after a ping: the peer or the network is dead. */
  | 'ERR_REST_WEBSOCKET_PONG_TIMEOUT';

/**
 * WebSocketError is a WebSocket connection (exec, attach, port-forward) that failed after the
 * server accepted the upgrade: a broken handshake, a bad frame, a close without a close frame
 * (`closeCode` 1006) or with an error code, or a server that stopped answering pings. A refused upgrade is an `ApiError` (the server's
 * Status), a connection that never opened a `ConnectionError`.
 */
export class WebSocketError extends KubeError {
  static override readonly brand: symbol = Symbol.for('@k/rest.WebSocketError');
  declare readonly code: WebSocketErrorCode;
  readonly request: ApiErrorRequest;
  /** closeCode is the close code (RFC 6455 §7.4), when the connection got that far. */
  readonly closeCode: number | undefined;

  constructor(
    code: WebSocketErrorCode,
    message: string,
    options: { request: ApiErrorRequest; closeCode?: number | undefined; cause?: unknown },
  ) {
    super(code, message, { cause: options.cause });
    this.request = options.request;
    this.closeCode = options.closeCode;
  }
}

/** KRestErrorCode is every code an error of @k/rest can have. */
export type KRestErrorCode =
  | RequestBuildError['code']
  | ApiErrorCode
  | ResponseDecodeError['code']
  | RequestTimeoutError['code']
  | ConnectionError['code']
  | WatchDecodeError['code']
  | RestUsageError['code']
  | RestConfigurationError['code']
  | WebSocketErrorCode;

function reasonAndCode(error: unknown): [reason: string, code: number] | undefined {
  if (!ApiError.isInstance(error)) return undefined;
  return [error.reason, error.statusCode];
}

function reasonOrUnknownCode(error: unknown, reason: string, code: number): boolean {
  const found = reasonAndCode(error);
  if (found === undefined) return false;
  return found[0] === reason || (!KNOWN_STATUS_REASONS.has(found[0]) && found[1] === code);
}

/** reasonForError returns the `Status` reason of an {@link ApiError}, `''` for anything else. */
export function reasonForError(error: unknown): StatusReason {
  return ApiError.isInstance(error) ? error.reason : '';
}

/** isNotFound: reason NotFound, or an unknown reason with code 404. */
export function isNotFound(error: unknown): boolean {
  return reasonOrUnknownCode(error, 'NotFound', 404);
}

/** isAlreadyExists: reason AlreadyExists (a 409 answering a POST without a Status body has it). */
export function isAlreadyExists(error: unknown): boolean {
  return reasonForError(error) === 'AlreadyExists';
}

/**
 * isConflict: reason Conflict, or an unknown reason with code 409 — a stale `resourceVersion` on
 * update, or a server-side apply conflict between field managers (causes `FieldManagerConflict`).
 */
export function isConflict(error: unknown): boolean {
  return reasonOrUnknownCode(error, 'Conflict', 409);
}

/** isInvalid: reason Invalid, or an unknown reason with code 422; `details.causes` names the fields. */
export function isInvalid(error: unknown): boolean {
  return reasonOrUnknownCode(error, 'Invalid', 422);
}

/** isForbidden: reason Forbidden, or an unknown reason with code 403. */
export function isForbidden(error: unknown): boolean {
  return reasonOrUnknownCode(error, 'Forbidden', 403);
}

/** isUnauthorized: reason Unauthorized, or an unknown reason with code 401. */
export function isUnauthorized(error: unknown): boolean {
  return reasonOrUnknownCode(error, 'Unauthorized', 401);
}

/** isBadRequest: reason BadRequest, or an unknown reason with code 400. */
export function isBadRequest(error: unknown): boolean {
  return reasonOrUnknownCode(error, 'BadRequest', 400);
}

/**
 * isGone is true for every 410: reason Gone, reason Expired (a too-old `resourceVersion` or an
 * expired continue token) or a 410 with another reason. Unlike client-go, where `IsGone` misses
 * Expired and callers must remember to also check `IsResourceExpired`, one check covers both.
 */
export function isGone(error: unknown): boolean {
  const found = reasonAndCode(error);
  if (found === undefined) return false;
  return (
    found[0] === 'Gone' ||
    found[0] === 'Expired' ||
    (!KNOWN_STATUS_REASONS.has(found[0]) && found[1] === 410)
  );
}

/** isResourceExpired: reason Expired only (client-go's `IsResourceExpired`). */
export function isResourceExpired(error: unknown): boolean {
  return reasonForError(error) === 'Expired';
}

/** isTooManyRequests: reason TooManyRequests, or code 429 whatever the reason. */
export function isTooManyRequests(error: unknown): boolean {
  const found = reasonAndCode(error);
  return found !== undefined && (found[0] === 'TooManyRequests' || found[1] === 429);
}

/** isServerTimeout: reason ServerTimeout only (the server gave up; `retryAfterSeconds` says when to retry). */
export function isServerTimeout(error: unknown): boolean {
  return reasonForError(error) === 'ServerTimeout';
}

/** isTimeout: reason Timeout, or an unknown reason with code 504. */
export function isTimeout(error: unknown): boolean {
  return reasonOrUnknownCode(error, 'Timeout', 504);
}

/** isInternalError: reason InternalError, or an unknown reason with code 500. */
export function isInternalError(error: unknown): boolean {
  return reasonOrUnknownCode(error, 'InternalError', 500);
}

/** isServiceUnavailable: reason ServiceUnavailable, or an unknown reason with code 503. */
export function isServiceUnavailable(error: unknown): boolean {
  return reasonOrUnknownCode(error, 'ServiceUnavailable', 503);
}

/** suggestsClientDelay is true for ServerTimeout or any error with `retryAfterSeconds > 0`. */
export function suggestsClientDelay(error: unknown): boolean {
  if (!ApiError.isInstance(error)) return false;
  return error.reason === 'ServerTimeout' || (error.retryAfterSeconds ?? 0) > 0;
}
