import { KubeError } from '@k/config/errors';

/** EnvtestErrorCode lists the stable codes of {@link EnvtestError}; branch on these, never on messages. */
export type EnvtestErrorCode =
  /** No source of kube-apiserver and etcd: no directory, no `KUBEBUILDER_ASSETS`, no cache, no Go. */
  | 'ERR_ENVTEST_BINARIES_MISSING'
  /** A component was asked for that the binaries lack (kube-controller-manager, kube-scheduler, kwok). */
  | 'ERR_ENVTEST_COMPONENT_UNAVAILABLE'
  /** The binaries are older than the flags k-envtest passes need. */
  | 'ERR_ENVTEST_UNSUPPORTED_VERSION'
  /** No usable Go toolchain for a build. */
  | 'ERR_ENVTEST_GO_UNAVAILABLE'
  /** A build step failed. */
  | 'ERR_ENVTEST_BUILD_FAILED'
  /** Another process held the build lock too long. */
  | 'ERR_ENVTEST_BUILD_LOCK_TIMEOUT'
  /** A cache entry does not match its stamp. */
  | 'ERR_ENVTEST_CACHE_CORRUPT'
  /** openssl failed (or is missing: it is required). */
  | 'ERR_ENVTEST_PKI_FAILED'
  /** A port the control plane needs was taken. */
  | 'ERR_ENVTEST_PORT_IN_USE'
  /** A process exited while starting. */
  | 'ERR_ENVTEST_PROCESS_EXITED'
  /** A component was not ready in time. */
  | 'ERR_ENVTEST_READY_TIMEOUT'
  /** Creating a user, binding, namespace, CRD or webhook configuration failed. */
  | 'ERR_ENVTEST_PROVISION_FAILED'
  /** No running control plane where one was expected. */
  | 'ERR_ENVTEST_NOT_RUNNING'
  /** The options are invalid. */
  | 'ERR_ENVTEST_INVALID_OPTIONS'
  /** A namespace did not go away in time (the message names what holds it). */
  | 'ERR_ENVTEST_NAMESPACE_STUCK'
  /** A CustomResourceDefinition document is invalid (the message names file and document). */
  | 'ERR_ENVTEST_CRD_INVALID'
  /** A CRD path does not exist. */
  | 'ERR_ENVTEST_CRD_PATH_MISSING'
  /** An `eventually` check's first attempt was still running at the deadline (a failed attempt's own error is rethrown instead). */
  | 'ERR_ENVTEST_TIMEOUT';

/**
 * EnvtestError is every failure @k/envtest itself detects. `step` names what was being done and
 * `logTail` holds the last lines of the failing process's output (also in the message). What the
 * server answers stays an `ApiError` from @k/rest, kept as `cause` where envtest wraps it.
 * Messages never hold a token or a key.
 */
export class EnvtestError extends KubeError {
  static override readonly brand: symbol = Symbol.for('@k/envtest.EnvtestError');
  declare readonly code: EnvtestErrorCode;
  readonly step: string | undefined;
  readonly logTail: string | undefined;

  constructor(
    code: EnvtestErrorCode,
    message: string,
    options: { cause?: unknown; step?: string | undefined; logTail?: string | undefined } = {},
  ) {
    super(code, message, { cause: options.cause });
    this.step = options.step;
    this.logTail = options.logTail;
  }
}

const ENGINE_CODES: ReadonlySet<string> = new Set([
  'BINARIES_MISSING',
  'COMPONENT_UNAVAILABLE',
  'UNSUPPORTED_VERSION',
  'GO_UNAVAILABLE',
  'BUILD_FAILED',
  'BUILD_LOCK_TIMEOUT',
  'CACHE_CORRUPT',
  'PKI_FAILED',
  'PORT_IN_USE',
  'PROCESS_EXITED',
  'READY_TIMEOUT',
  'PROVISION_FAILED',
  'NOT_RUNNING',
  'INVALID_OPTIONS',
]);

/** PEM blocks of private keys (any kind) and bearer credentials, which no message may carry. */
const PRIVATE_KEY_BLOCK =
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi;
const TOKEN_FIELD = /\b(token|password|secret)(["']?\s*[:=]\s*["']?)[^\s"',}]+/gi;
/** The engine's commands are k-envtest's for users: `k-testenv up` reads `k-envtest up`. */
const ENGINE_COMMAND = /\bk-testenv(?= (?:build|up|down|status|run|assets|serve)\b)/g;

/**
 * redactSecrets removes private keys, bearer and basic credentials, `token=`/`password:`-style
 * values and each of `secrets` (exact strings, e.g. the plane's tokens) from `text`.
 */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let redacted = text
    .replace(PRIVATE_KEY_BLOCK, '[redacted private key]')
    .replace(BEARER, '$1 [redacted]')
    .replace(TOKEN_FIELD, '$1$2[redacted]');
  for (const secret of secrets) {
    if (secret.length >= 8) redacted = redacted.split(secret).join('[redacted]');
  }
  return redacted;
}

/**
 * scrubInPlace redacts the secrets of an error kept as `cause`: reports print causes too.
 */
function scrubInPlace(error: Error & { logTail?: string | undefined }, secrets: readonly string[]) {
  for (const field of ['message', 'stack', 'logTail'] as const) {
    const value = error[field];
    if (typeof value !== 'string') continue;
    const redacted = redactSecrets(value, secrets);
    if (redacted !== value) {
      Object.defineProperty(error, field, { value: redacted, configurable: true, writable: true });
    }
  }
}

/**
 * toEnvtestError turns an error of the bundled control-plane engine into an {@link EnvtestError}:
 * its code prefixed `ERR_ENVTEST_`, its message with the engine's command names given as
 * k-envtest's and with secrets (private keys, bearer tokens, each of `secrets`) removed, and the
 * original kept as `cause`. An EnvtestError and anything that is not an engine error are returned
 * as they are.
 */
export function toEnvtestError(error: unknown, secrets: readonly string[] = []): unknown {
  if (typeof error !== 'object' || error === null || !(error instanceof Error)) return error;
  if (EnvtestError.isInstance(error)) return error;
  const { code, step, logTail } = error as Error & {
    code?: unknown;
    step?: string | undefined;
    logTail?: string | undefined;
  };
  if (error.name !== 'ControlPlaneError' || typeof code !== 'string' || !ENGINE_CODES.has(code)) {
    return error;
  }
  const clean = (text: string) => redactSecrets(text, secrets).replace(ENGINE_COMMAND, 'k-envtest');
  scrubInPlace(error, secrets);
  return new EnvtestError(`ERR_ENVTEST_${code}` as EnvtestErrorCode, clean(error.message), {
    cause: error,
    step,
    logTail: logTail === undefined ? undefined : clean(logTail),
  });
}
