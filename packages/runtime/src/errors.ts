import { KubeError } from '@k/config/errors';

/** The stable codes of {@link RuntimeError}. */
export type RuntimeErrorCode =
  /** An argument or option has the wrong type or value (a plain-JavaScript caller's mistake). */
  | 'ERR_RUNTIME_INVALID_ARGUMENT'
  /** The options cannot work together, or something is registered twice. */
  | 'ERR_RUNTIME_CONFIGURATION'
  /** An informer could not list its resource (the server's error is the `cause`). */
  | 'ERR_RUNTIME_INFORMER_LIST'
  /** An informer's watch could not be opened or broke (the server's error is the `cause`). */
  | 'ERR_RUNTIME_INFORMER_WATCH'
  /** An informer was not synced when the wait for it ended (its last error is the `cause`). */
  | 'ERR_RUNTIME_NOT_SYNCED'
  /** A Manager's probe or metrics server could not listen (the port is taken, the host unknown). */
  | 'ERR_RUNTIME_LISTEN'
  /** A Manager lost its leader election while running (it stops, like controller-runtime's, to restart clean). */
  | 'ERR_RUNTIME_LEADERSHIP_LOST'
  /** A Manager's runnables did not stop within its graceful shutdown timeout. */
  | 'ERR_RUNTIME_SHUTDOWN_TIMEOUT'
  /** A guarded write (a finalizer patch) lost the race to other writers on every attempt. */
  | 'ERR_RUNTIME_CONFLICT'
  /** A reconcile failed for good ({@link TerminalError}): it is not retried until the object changes. */
  | 'ERR_RUNTIME_TERMINAL'
  /** A webhook server's serving certificate could not be read, parsed, matched with its key or made. */
  | 'ERR_RUNTIME_WEBHOOK_CERTIFICATE'
  /** An admission handler refused the object ({@link AdmissionDenied}). */
  | 'ERR_RUNTIME_ADMISSION_DENIED'
  /** A conversion webhook could not convert an object (no converter for its version, a converter threw). */
  | 'ERR_RUNTIME_CONVERSION';

/**
 * RuntimeError is every failure @k/runtime itself detects (what the server answers stays an
 * `ApiError` from @k/rest, kept as `cause` where @k/runtime wraps it).
 */
export class RuntimeError extends KubeError {
  static override readonly brand: symbol = Symbol.for('@k/runtime.RuntimeError');
  declare readonly code: RuntimeErrorCode;

  constructor(code: RuntimeErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, { cause: options.cause });
  }
}

/**
 * InformerError is a failure of an informer to list or watch (`ERR_RUNTIME_INFORMER_LIST`,
 * `ERR_RUNTIME_INFORMER_WATCH`), handed to its error handlers and kept in its health while it
 * backs off and tries again, or a wait for its sync that ended first (`ERR_RUNTIME_NOT_SYNCED`).
 * `resource` names what it informs on (`configmaps in namespace a`); `cause` is the `ApiError`,
 * `ConnectionError` or other error underneath.
 */
export class InformerError extends RuntimeError {
  static override readonly brand: symbol = Symbol.for('@k/runtime.InformerError');
  declare readonly code:
    'ERR_RUNTIME_INFORMER_LIST' | 'ERR_RUNTIME_INFORMER_WATCH' | 'ERR_RUNTIME_NOT_SYNCED';
  readonly resource: string;

  constructor(
    code: InformerError['code'],
    resource: string,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(code, message, options);
    this.resource = resource;
  }
}

/**
 * isLeadershipLost is true for the abort reason of a signal that ended because this process
 * stopped leading involuntarily (`ERR_RUNTIME_LEADERSHIP_LOST`): work must stop at once, without
 * the graceful drain a voluntary stop gets, since another replica may already lead.
 */
export function isLeadershipLost(reason: unknown): boolean {
  return RuntimeError.isInstance(reason) && reason.code === 'ERR_RUNTIME_LEADERSHIP_LOST';
}

/**
 * TerminalError is a reconcile failure that retrying cannot fix (controller-runtime's
 * `reconcile.TerminalError`): an invalid spec the reconciler refuses, say. Thrown from a
 * reconciler, the request is not requeued (a later change of the object enqueues it again), the
 * failure is logged and counted in `controller_runtime_terminal_reconcile_errors_total`, and a
 * controller with an event recorder tells it on the object as a `ReconcileFailed` warning.
 * Any other error is retried with backoff.
 */
export class TerminalError extends RuntimeError {
  static override readonly brand: symbol = Symbol.for('@k/runtime.TerminalError');
  declare readonly code: 'ERR_RUNTIME_TERMINAL';

  constructor(message: string, options: { cause?: unknown } = {}) {
    super('ERR_RUNTIME_TERMINAL', message, options);
  }
}

/** AdmissionCause is one reason of a denial, tied to a field (`spec.replicas`), as the API server reports it. */
export interface AdmissionCause {
  /** field is the path of the offending field, e.g. `spec.hosts[0]`. */
  readonly field: string;
  readonly message: string;
  /** reason is the API's cause type (default `FieldValueInvalid`). */
  readonly reason?: string | undefined;
}

/** AdmissionDeniedOptions say how the API server reports a denial. */
export interface AdmissionDeniedOptions {
  /** causes are the fields at fault; with causes the denial is `422 Invalid`, else `403 Forbidden`. */
  readonly causes?: readonly AdmissionCause[] | undefined;
  /** code overrides the HTTP status the API server answers with (400–599). */
  readonly code?: number | undefined;
  /** reason overrides the status reason (`Forbidden`, `Invalid`, …). */
  readonly reason?: string | undefined;
  readonly cause?: unknown;
}

/**
 * AdmissionDenied, thrown from an admission handler, refuses the request: the API server answers
 * the client with `message` (and `causes`, field by field) instead of storing the object. Any
 * other error thrown by a handler also refuses it, with code 500 and the error's message.
 */
export class AdmissionDenied extends RuntimeError {
  static override readonly brand: symbol = Symbol.for('@k/runtime.AdmissionDenied');
  declare readonly code: 'ERR_RUNTIME_ADMISSION_DENIED';
  readonly causes: readonly AdmissionCause[];
  readonly statusCode: number;
  readonly reason: string;

  constructor(message: string, options: AdmissionDeniedOptions = {}) {
    super('ERR_RUNTIME_ADMISSION_DENIED', message, { cause: options.cause });
    this.causes = options.causes ?? [];
    const invalid = this.causes.length > 0;
    this.statusCode = options.code ?? (invalid ? 422 : 403);
    this.reason = options.reason ?? (invalid ? 'Invalid' : 'Forbidden');
  }
}
