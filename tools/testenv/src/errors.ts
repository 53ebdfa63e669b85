const BRAND = Symbol.for('@k/testenv.ControlPlaneError');

/**
 * ControlPlaneErrorCode lists the stable codes of {@link ControlPlaneError}; callers branch on these,
 * never on messages.
 */
export type ControlPlaneErrorCode =
  /** The Go toolchain is missing or is not the version the cache key expects. */
  | 'GO_UNAVAILABLE'
  /** A build step (download, go mod tidy, go build, version check) failed. */
  | 'BUILD_FAILED'
  /** Another process held the build lock for longer than the wait allowed. */
  | 'BUILD_LOCK_TIMEOUT'
  /**
   * No usable binaries: nothing in the directory, variables or cache that were looked in, and no
   * build (not allowed, or no Go); or a named file is missing or not executable.
   */
  | 'BINARIES_MISSING'
  /** A component was asked for that the binaries lack (e.g. kube-controller-manager in a directory). */
  | 'COMPONENT_UNAVAILABLE'
  /** The binaries are of a Kubernetes release older than the flags the control plane passes need. */
  | 'UNSUPPORTED_VERSION'
  /** The cache entry's stamp does not match its binaries (half-written or modified). */
  | 'CACHE_CORRUPT'
  /** Generating certificates or keys with openssl failed. */
  | 'PKI_FAILED'
  /** A port the control plane needs is already in use. */
  | 'PORT_IN_USE'
  /** A control-plane process exited while starting. */
  | 'PROCESS_EXITED'
  /** A component did not become ready before the timeout. */
  | 'READY_TIMEOUT'
  /** Creating users, bindings or namespaces through the API failed. */
  | 'PROVISION_FAILED'
  /** No running control plane was found where one was expected (state file, env). */
  | 'NOT_RUNNING'
  /** Invalid options were passed. */
  | 'INVALID_OPTIONS';

/**
 * ControlPlaneError is the one error type @k/testenv throws for expected failures. `code` is stable;
 * `step` names what was being done; `logTail` holds the last lines of the failing process or command
 * output (already part of the message, kept separate for programmatic use).
 */
export class ControlPlaneError extends Error {
  override readonly name = 'ControlPlaneError';
  readonly code: ControlPlaneErrorCode;
  readonly step: string | undefined;
  readonly logTail: string | undefined;

  constructor(
    code: ControlPlaneErrorCode,
    message: string,
    options: { step?: string; logTail?: string; cause?: unknown } = {},
  ) {
    const tail = options.logTail?.trimEnd();
    super(tail ? `${message}\n--- last output ---\n${tail}` : message, { cause: options.cause });
    this.code = code;
    this.step = options.step;
    this.logTail = tail;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** ControlPlaneError.isInstance is true for a ControlPlaneError from any copy of this package. */
  static isInstance(value: unknown): value is ControlPlaneError {
    return typeof value === 'object' && value !== null && BRAND in value;
  }
}
