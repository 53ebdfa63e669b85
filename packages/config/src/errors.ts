const KUBE_ERROR_BRAND = Symbol.for('@k/config.KubeError');

/**
 * KubeError is the base of every error thrown by a k package. `code` is stable and meant for
 * programs; `message` is for people, lowercase, names the failing thing and never holds a secret.
 * `KubeError.isInstance` works across duplicated copies of the package (it checks a
 * `Symbol.for` brand, not the prototype chain).
 */
export class KubeError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
    Object.defineProperty(this, KUBE_ERROR_BRAND, { value: true });
  }

  /** isInstance reports whether `value` is a KubeError from any copy of this package. */
  static isInstance(value: unknown): value is KubeError {
    return typeof value === 'object' && value !== null && KUBE_ERROR_BRAND in value;
  }
}

/** The stable codes of {@link KubeconfigError}. */
export type KubeconfigErrorCode =
  /** A kubeconfig file could not be read (missing explicit path, permission, a directory). */
  | 'ERR_KUBECONFIG_READ'
  /** A kubeconfig file is not valid YAML/JSON or does not have the kubeconfig shape. */
  | 'ERR_KUBECONFIG_PARSE'
  /** One file lists two clusters, users, contexts or extensions with the same name. */
  | 'ERR_KUBECONFIG_DUPLICATE_NAME'
  /** Nothing was configured: no server for the selected cluster, or no config at all. */
  | 'ERR_KUBECONFIG_EMPTY'
  /** An explicitly requested context, cluster or user does not exist. */
  | 'ERR_KUBECONFIG_NOT_FOUND'
  /** The selected context, cluster or user fails client-go's validation. */
  | 'ERR_KUBECONFIG_INVALID'
  /** Writing a kubeconfig file failed; the file was left as it was. */
  | 'ERR_KUBECONFIG_WRITE';

/**
 * KubeconfigError is thrown for every problem with kubeconfig files: reading, parsing,
 * validating and writing them. `path` names the file and `entry` the cluster, user or context
 * concerned, when there is one.
 */
export class KubeconfigError extends KubeError {
  declare readonly code: KubeconfigErrorCode;
  readonly path: string | undefined;
  readonly entry: string | undefined;
  /** problems lists every validation failure when there was more than one. */
  readonly problems: readonly string[];

  constructor(
    code: KubeconfigErrorCode,
    message: string,
    options: { path?: string; entry?: string; problems?: readonly string[]; cause?: unknown } = {},
  ) {
    super(code, message, { cause: options.cause });
    this.path = options.path;
    this.entry = options.entry;
    this.problems = options.problems ?? [message];
  }
}

/** The stable codes of {@link InClusterConfigError}. */
export type InClusterConfigErrorCode =
  /** KUBERNETES_SERVICE_HOST or KUBERNETES_SERVICE_PORT is not set. */
  | 'ERR_NOT_IN_CLUSTER'
  /** The service-account token could not be read. */
  | 'ERR_IN_CLUSTER_TOKEN';

/** InClusterConfigError is thrown by `loadInClusterConfig` when the process is not in a pod. */
export class InClusterConfigError extends KubeError {
  declare readonly code: InClusterConfigErrorCode;
}

/**
 * ConfigInferenceError is thrown by `inferConfig` when neither a kubeconfig nor the in-cluster
 * environment gives a usable configuration. It keeps both causes.
 */
export class ConfigInferenceError extends KubeError {
  declare readonly code: 'ERR_NO_CONFIGURATION';
  readonly kubeconfigError: unknown;
  readonly inClusterError: unknown;

  constructor(kubeconfigError: unknown, inClusterError: unknown) {
    super(
      'ERR_NO_CONFIGURATION',
      `no usable configuration: kubeconfig: ${describe(kubeconfigError)}; in-cluster: ${describe(inClusterError)}`,
      { cause: kubeconfigError },
    );
    this.kubeconfigError = kubeconfigError;
    this.inClusterError = inClusterError;
  }
}

/**
 * ConfigArgumentError is thrown (or rejected with) when a public function of @k/config gets an
 * argument of the wrong type, as a plain JavaScript caller can pass one. The message names the
 * function, the argument (`options.explicitPath`) and what to pass, and the type received, never
 * the value (it could be a credential in the wrong place). `argument` is that name.
 */
export class ConfigArgumentError extends KubeError {
  declare readonly code: 'ERR_CONFIG_INVALID_ARGUMENT';
  readonly argument: string;

  constructor(functionName: string, argument: string, expected: string, received: unknown) {
    super(
      'ERR_CONFIG_INVALID_ARGUMENT',
      `${functionName}: ${argument} must be ${expected}, not ${describeType(received)}`,
    );
    this.argument = argument;
  }
}

/** describeType names what a value is without showing it. */
function describeType(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'NaN';
    if (!Number.isFinite(value)) return 'an infinite number';
    return value < 0 ? 'a negative number' : 'a number';
  }
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Map) return 'a Map';
  if (value instanceof Uint8Array) return 'bytes';
  if (typeof value === 'object') {
    const name = (value.constructor as { name?: string } | undefined)?.name;
    return name && name !== 'Object' ? `a ${name}` : 'an object';
  }
  return `a ${typeof value}`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
