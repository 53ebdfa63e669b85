/** ErrorClass is an error class with its brand, for the static methods of {@link KubeError}. */
export interface ErrorClass<T> {
  readonly prototype: T;
  readonly brand: symbol;
}

/**
 * errorName is the class's name from its brand (`@k/rest.ApiError` → `ApiError`): bundlers may
 * compile a class with static fields to an anonymous expression (`_class`), so the class's own
 * `name` cannot be trusted. A subclass without its own brand keeps its own name.
 */
function errorName(target: ErrorClass<unknown> & { name: string }): string {
  if (!Object.hasOwn(target, 'brand')) return target.name;
  const description = target.brand.description ?? '';
  return description.slice(description.lastIndexOf('.') + 1) || target.name;
}

function hasBrand(value: unknown, brand: symbol): boolean {
  return typeof value === 'object' && value !== null && brand in value;
}

/**
 * KubeError is the base of every error thrown by a k package. `code` is stable and meant for
 * programs, prefixed by the package it comes from (`ERR_CONFIG_…`, `ERR_TRANSPORT_…`,
 * `ERR_REST_…`, `ERR_CLIENTSET_…`); `message` is for people, lowercase, names the failing thing
 * and never holds a secret.
 *
 * Identity is exact per class and works across duplicated copies of a package: each error class
 * declares its own `static brand` (a `Symbol.for` name), every instance carries the brands of its
 * class and its ancestors, and `X.isInstance(value)` / `value instanceof X` check X's brand, not
 * the prototype chain (undici's pattern). `KubeError.isInstance` is true for every k error.
 */
export class KubeError extends Error {
  /** brand names the class across copies of the package; every subclass declares its own. */
  static readonly brand: symbol = Symbol.for('@k/config.KubeError');
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = errorName(new.target);
    for (
      let target: unknown = new.target;
      typeof target === 'function' && target !== Error;
      target = Object.getPrototypeOf(target)
    ) {
      if (Object.hasOwn(target, 'brand')) {
        Object.defineProperty(this, (target as unknown as ErrorClass<unknown>).brand, {
          value: true,
        });
      }
    }
  }

  /** isInstance reports whether `value` is an instance of this class, from any copy of its package. */
  static isInstance<T>(this: ErrorClass<T>, value: unknown): value is T {
    return hasBrand(value, this.brand);
  }

  /** `value instanceof` this class is {@link isInstance}: exact, and across copies. */
  static override [Symbol.hasInstance](this: ErrorClass<unknown>, value: unknown): boolean {
    return hasBrand(value, this.brand);
  }
}

/** The stable codes of {@link KubeconfigError}. */
export type KubeconfigErrorCode =
  /** A kubeconfig file could not be read (missing explicit path, permission, a directory). */
  | 'ERR_CONFIG_READ'
  /** A kubeconfig file is not valid YAML/JSON or does not have the kubeconfig shape. */
  | 'ERR_CONFIG_PARSE'
  /** One file lists two clusters, users, contexts or extensions with the same name. */
  | 'ERR_CONFIG_DUPLICATE_NAME'
  /** Nothing was configured: no server for the selected cluster, or no config at all. */
  | 'ERR_CONFIG_EMPTY'
  /** An explicitly requested context, cluster or user does not exist. */
  | 'ERR_CONFIG_NOT_FOUND'
  /** The selected context, cluster or user fails client-go's validation. */
  | 'ERR_CONFIG_INVALID'
  /** Writing a kubeconfig file failed; the file was left as it was. */
  | 'ERR_CONFIG_WRITE';

/**
 * KubeconfigError is thrown for every problem with kubeconfig files: reading, parsing,
 * validating and writing them. `path` names the file and `entry` the cluster, user or context
 * concerned, when there is one.
 */
export class KubeconfigError extends KubeError {
  static override readonly brand: symbol = Symbol.for('@k/config.KubeconfigError');
  declare readonly code: KubeconfigErrorCode;
  readonly path: string | undefined;
  readonly entry: string | undefined;
  /** problems lists every validation failure when there was more than one. */
  readonly problems: readonly string[];

  constructor(
    code: KubeconfigErrorCode,
    message: string,
    options: {
      path?: string | undefined;
      entry?: string | undefined;
      problems?: readonly string[] | undefined;
      cause?: unknown;
    } = {},
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
  | 'ERR_CONFIG_NOT_IN_CLUSTER'
  /** The service-account token could not be read. */
  | 'ERR_CONFIG_IN_CLUSTER_TOKEN';

/** InClusterConfigError is thrown by `loadInClusterConfig` when the process is not in a pod. */
export class InClusterConfigError extends KubeError {
  static override readonly brand: symbol = Symbol.for('@k/config.InClusterConfigError');
  declare readonly code: InClusterConfigErrorCode;
}

/**
 * ConfigInferenceError is thrown by `inferConfig` when neither a kubeconfig nor the in-cluster
 * environment gives a usable configuration. It keeps both causes.
 */
export class ConfigInferenceError extends KubeError {
  static override readonly brand: symbol = Symbol.for('@k/config.ConfigInferenceError');
  declare readonly code: 'ERR_CONFIG_NOT_INFERRED';
  readonly kubeconfigError: unknown;
  readonly inClusterError: unknown;

  constructor(kubeconfigError: unknown, inClusterError: unknown) {
    super(
      'ERR_CONFIG_NOT_INFERRED',
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
  static override readonly brand: symbol = Symbol.for('@k/config.ConfigArgumentError');
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

/** KConfigErrorCode is every code an error of @k/config can have. */
export type KConfigErrorCode =
  | KubeconfigErrorCode
  | InClusterConfigErrorCode
  | ConfigInferenceError['code']
  | ConfigArgumentError['code'];
