import { KubeError } from '@k/config/errors';

/** The stable codes of {@link OperatorError}. */
export type OperatorErrorCode =
  /** A command-line flag is unknown, malformed or out of range. */
  | 'ERR_OPERATOR_INVALID_FLAG'
  /** A namespace's registry ConfigMap has no room for another entry (REGISTRY_MAX_BYTES). */
  | 'ERR_OPERATOR_REGISTRY_FULL';

/** OperatorError is what the demo operator itself detects (server answers stay @k/rest `ApiError`s). */
export class OperatorError extends KubeError {
  static override readonly brand: symbol = Symbol.for('@k/demo-operator.OperatorError');
  declare readonly code: OperatorErrorCode;

  constructor(code: OperatorErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, { cause: options.cause });
  }
}
