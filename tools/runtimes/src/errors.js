const BRAND = Symbol.for('@k/runtimes.RuntimeError');

/**
 * RuntimeError is every failure of @k/runtimes. `code` is stable:
 * - `K_RUNTIMES_UNKNOWN`: a name that is not one of {@link RUNTIME_NAMES};
 * - `K_RUNTIMES_UNSUPPORTED_PLATFORM`: the registry has no build of the runtime for this
 *   platform and architecture;
 * - `K_RUNTIMES_INSTALL_FAILED`: `npm install` of the runtime's package failed (its stderr, cut
 *   to the end and with credentials removed, is in the message);
 * - `K_RUNTIMES_NOT_RUNNABLE`: the installed binary did not run or printed another version;
 * - `K_RUNTIMES_ENGINES`: a package.json `engines.node` this package cannot read.
 * `runtime` and `version` name what was asked for. The brand makes `instanceof` work across two
 * copies of the package.
 */
export class RuntimeError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   * @param {{ runtime?: string | undefined, version?: string | undefined, cause?: unknown }} [details]
   */
  constructor(code, message, details = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'RuntimeError';
    /** @readonly */
    this.code = code;
    /** @readonly */
    this.runtime = details.runtime;
    /** @readonly */
    this.version = details.version;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /**
   * @override
   * @param {unknown} value
   * @returns {boolean}
   */
  static [Symbol.hasInstance](value) {
    return typeof value === 'object' && value !== null && BRAND in value;
  }
}
