/**
 * StatusReason is the machine-readable reason of a failed `Status` (`metav1.StatusReason`). The
 * empty string is "unknown"; servers may send reasons not listed here.
 */
export type StatusReason =
  | ''
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'ServerTimeout'
  | 'StorageReadError'
  | 'Timeout'
  | 'TooManyRequests'
  | 'BadRequest'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'InternalError'
  | 'ServiceUnavailable'
  | (string & {});

/**
 * KNOWN_STATUS_REASONS are the reasons apimachinery knows. The `is*` predicates fall back to the
 * HTTP code only when the reason is not one of these (client-go's `knownReasons`).
 */
export const KNOWN_STATUS_REASONS: ReadonlySet<string> = new Set([
  'Unauthorized',
  'Forbidden',
  'NotFound',
  'AlreadyExists',
  'Conflict',
  'Gone',
  'Invalid',
  'ServerTimeout',
  'StorageReadError',
  'Timeout',
  'TooManyRequests',
  'BadRequest',
  'MethodNotAllowed',
  'NotAcceptable',
  'RequestEntityTooLarge',
  'UnsupportedMediaType',
  'InternalError',
  'Expired',
  'ServiceUnavailable',
]);

/** StatusCause is one reason a request failed, often naming the field at fault. */
export interface StatusCause {
  /** reason is the cause type, e.g. `FieldValueInvalid`, `FieldManagerConflict`. */
  reason?: string | undefined;
  message?: string | undefined;
  field?: string | undefined;
}

/** StatusDetails names the object a `Status` is about and, for Invalid, each failing field. */
export interface StatusDetails {
  name?: string | undefined;
  group?: string | undefined;
  kind?: string | undefined;
  uid?: string | undefined;
  causes?: StatusCause[] | undefined;
  retryAfterSeconds?: number | undefined;
}

/** Status is the API server's `metav1.Status`: the body of every failed API call. */
export interface Status {
  apiVersion?: string | undefined;
  kind?: string | undefined;
  metadata?:
    | {
        resourceVersion?: string | undefined;
        continue?: string | undefined;
        selfLink?: string | undefined;
      }
    | undefined;
  /** status is `Success` or `Failure`. */
  status?: string | undefined;
  message?: string | undefined;
  reason?: StatusReason | undefined;
  details?: StatusDetails | undefined;
  code?: number | undefined;
}

const STATUS_API_VERSIONS = new Set([undefined, 'v1', 'meta.k8s.io/v1']);

function optional(value: unknown, type: 'string' | 'number' | 'object'): boolean {
  if (value === undefined) return true;
  if (type === 'object')
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  return typeof value === type;
}

function isStatusCause(value: unknown): boolean {
  if (!optional(value, 'object') || value === undefined) return false;
  const { reason, message, field } = value as Record<string, unknown>;
  return optional(reason, 'string') && optional(message, 'string') && optional(field, 'string');
}

function isStatusDetails(value: unknown): boolean {
  if (value === undefined) return true;
  if (!optional(value, 'object')) return false;
  const { name, group, kind, uid, causes, retryAfterSeconds } = value as Record<string, unknown>;
  return (
    optional(name, 'string') &&
    optional(group, 'string') &&
    optional(kind, 'string') &&
    optional(uid, 'string') &&
    (retryAfterSeconds === undefined || Number.isInteger(retryAfterSeconds)) &&
    (causes === undefined || (Array.isArray(causes) && causes.every(isStatusCause)))
  );
}

/**
 * isStatus reports whether a decoded JSON body is a `Status`: `kind: Status` (a missing
 * `apiVersion` is taken as `v1`) with every field it has of the type `metav1.Status` declares.
 * A body with a mistyped field (`"code": "404"`) is not a Status — client-go cannot decode it
 * either — so the caller falls back to the HTTP status code instead of trusting it.
 */
export function isStatus(value: unknown): value is Status {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { kind, apiVersion, status, message, reason, code, details, metadata } = value as Record<
    string,
    unknown
  >;
  return (
    kind === 'Status' &&
    STATUS_API_VERSIONS.has(apiVersion as string | undefined) &&
    optional(status, 'string') &&
    optional(message, 'string') &&
    optional(reason, 'string') &&
    (code === undefined || Number.isInteger(code)) &&
    optional(metadata, 'object') &&
    isStatusDetails(details)
  );
}

/** GenericStatusRequest is what {@link genericStatus} needs to know about the failed request. */
export interface GenericStatusRequest {
  method: string;
  group?: string | undefined;
  resource?: string | undefined;
  name?: string | undefined;
}

/**
 * genericStatus builds the `Status` client-go makes from a bare HTTP code when the body is not a
 * Status (`NewGenericServerResponse`): 409 is AlreadyExists for POST and Conflict otherwise, 404
 * NotFound, other codes ≥ 500 InternalError quoting `serverMessage`, and so on; the message ends with
 * ` (<verb> <resource[.group]> <name>)` when the request named a resource.
 */
export function genericStatus(
  statusCode: number,
  request: GenericStatusRequest,
  serverMessage: string,
  retryAfterSeconds: number | undefined,
  unexpectedResponse: boolean,
): Status {
  let reason: StatusReason = '';
  let message = `the server responded with the status code ${statusCode} but did not return more information`;
  switch (statusCode) {
    case 409:
      reason = request.method === 'POST' ? 'AlreadyExists' : 'Conflict';
      message = 'the server reported a conflict';
      break;
    case 404:
      reason = 'NotFound';
      message = 'the server could not find the requested resource';
      break;
    case 400:
      reason = 'BadRequest';
      message = 'the server rejected our request for an unknown reason';
      break;
    case 401:
      reason = 'Unauthorized';
      message = 'the server has asked for the client to provide credentials';
      break;
    case 403:
      reason = 'Forbidden';
      message = serverMessage;
      break;
    case 406:
      reason = 'NotAcceptable';
      message =
        serverMessage === '' || serverMessage === 'unknown'
          ? 'the server was unable to respond with a content type that the client supports'
          : serverMessage;
      break;
    case 415:
      reason = 'UnsupportedMediaType';
      message = serverMessage;
      break;
    case 405:
      reason = 'MethodNotAllowed';
      message = 'the server does not allow this method on the requested resource';
      break;
    case 422:
      reason = 'Invalid';
      message = 'the server rejected our request due to an error in our request';
      break;
    case 503:
      reason = 'ServiceUnavailable';
      message = 'the server is currently unable to handle the request';
      break;
    case 504:
      reason = 'Timeout';
      message =
        'the server was unable to return a response in the time allotted, but may still be processing the request';
      break;
    case 429:
      reason = 'TooManyRequests';
      message = 'the server has received too many requests and has asked us to try again later';
      break;
    default:
      if (statusCode >= 500) {
        reason = 'InternalError';
        message = `an error on the server (${JSON.stringify(serverMessage)}) has prevented the request from succeeding`;
      }
  }
  const group = request.group ?? '';
  const resource = request.resource ?? '';
  const name = request.name ?? '';
  if (resource !== '') {
    const qualified = group === '' ? resource : `${resource}.${group}`;
    const verb = request.method.toLowerCase();
    message =
      name === ''
        ? `${message} (${verb} ${qualified})`
        : `${message} (${verb} ${qualified} ${name})`;
  }
  const details: StatusDetails = {};
  if (group !== '') details.group = group;
  if (resource !== '') details.kind = resource;
  if (name !== '') details.name = name;
  if (unexpectedResponse)
    details.causes = [{ reason: 'UnexpectedServerResponse', message: serverMessage }];
  if (retryAfterSeconds !== undefined && retryAfterSeconds > 0) {
    details.retryAfterSeconds = retryAfterSeconds;
  }
  return {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code: statusCode,
    reason,
    message,
    details,
  };
}
