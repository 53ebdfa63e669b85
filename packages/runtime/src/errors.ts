import { KubeError } from '@k/config/errors';

/** The stable codes of {@link RuntimeError}. */
export type RuntimeErrorCode =
  /** An argument or option has the wrong type or value (a plain-JavaScript caller's mistake). */
  | 'ERR_RUNTIME_INVALID_ARGUMENT'
  /** The options cannot work together, or something is registered twice. */
  | 'ERR_RUNTIME_CONFIGURATION';

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

/** KRuntimeErrorCode is every code an error of @k/runtime can have. */
export type KRuntimeErrorCode = RuntimeErrorCode;
