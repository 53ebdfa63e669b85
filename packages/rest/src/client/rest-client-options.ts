import type { ResolvedConfig } from '@k/config';
import { describeValue } from '../describe-value.js';
import { RestConfigurationError } from '../errors.js';
import { WarningLogger, type WarningHandler } from '../response/warning-handler.js';
import { RetryPolicy, type RetryPolicyOptions } from '../retry/retry-policy.js';
import { systemClock, type Clock } from '../timers/clock.js';
import { TokenBucket, type RateLimiter } from '../throttle/token-bucket.js';
import type { RetryEvent, ThrottleEvent } from './request-executor.js';

/**
 * ThrottleOption is how a client's requests are paced: `{ qps, burst }` for a token bucket
 * (client-go's defaults 5 and 10; with `qps` > 0 a `burst` > 0 is required, client-go's rule),
 * `'off'` for none, or your own {@link RateLimiter}, shared as it is.
 */
export type ThrottleOption =
  { qps?: number | undefined; burst?: number | undefined } | 'off' | RateLimiter;

/** RestClientOptions configure a {@link RestClient}; every field is optional. */
export interface RestClientOptions {
  /** groupVersion is the default API of built requests: `v1` (core, default) or `<group>/<version>`. */
  groupVersion?: string | undefined;
  /**
   * timeoutMs is the configured request timeout (kubeconfig `--request-timeout`, client-go's
   * `Config.Timeout`): it bounds each buffered request on the client and is sent as the
   * `timeout` parameter on every request. Unset: the configuration's, else requests are bounded
   * by {@link DEFAULT_REQUEST_TIMEOUT_MS} on the client only and carry no parameter. 0: none.
   */
  timeoutMs?: number | undefined;
  /** watchIdleTimeoutMs is the default idle timeout of watches (default 5 minutes; 0 disables). */
  watchIdleTimeoutMs?: number | undefined;
  /** throttle paces requests (default: a token bucket of 5 qps, burst 10, as client-go). */
  throttle?: ThrottleOption | undefined;
  /** retry is the retry policy, or its options (default: client-go's, 10 retries). */
  retry?: RetryPolicyOptions | RetryPolicy | undefined;
  /** warningHandler receives the server's `Warning` headers (default: a {@link WarningLogger}). */
  warningHandler?: WarningHandler | undefined;
  /** onRetry is told about each retry before its wait starts (logs, metrics). */
  onRetry?: ((event: RetryEvent) => void) | undefined;
  /**
   * onThrottle is told, synchronously, about each throttle token an attempt took and how long
   * it waited for it (logs of long waits, client-go's `rest_client_rate_limiter_duration_seconds`;
   * @k/runtime wires both). It must not throw.
   */
  onThrottle?: ((event: ThrottleEvent) => void) | undefined;
  /** clock is where waits are scheduled (tests substitute `@k/rest/testing`'s `FakeClock`). */
  clock?: Clock | undefined;
  /**
   * protobuf: typed reads of built-in kinds ask for protobuf first, as client-go's generated
   * clients do (default `true`; the objects are the same as JSON's). `false` asks for JSON only
   * (client-go's `ContentType: application/json`). Metadata clients always ask protobuf first.
   */
  protobuf?: boolean | undefined;
}

/**
 * ResolvedRestClientOptions are {@link RestClientOptions} with every default applied and every
 * value checked: what a `RestClient` runs with. Sibling clients (`withGroupVersion`) share the
 * same `throttle` and `retry` instances.
 */
export interface ResolvedRestClientOptions {
  readonly groupVersion: string;
  /** timeoutMs is the configured timeout sent as the `timeout` parameter (undefined: none). */
  readonly timeoutMs: number | undefined;
  /** clientTimeoutMs bounds a buffered request on the client (0: never). */
  readonly clientTimeoutMs: number;
  readonly watchIdleTimeoutMs: number;
  readonly throttle: RateLimiter;
  readonly retry: RetryPolicy;
  readonly warningHandler: WarningHandler;
  readonly onRetry: ((event: RetryEvent) => void) | undefined;
  readonly onThrottle: ((event: ThrottleEvent) => void) | undefined;
  readonly clock: Clock;
  readonly protobuf: boolean;
}

/** DEFAULT_REQUEST_TIMEOUT_MS bounds a buffered request when no timeout is configured (60 s, the server's own default). */
const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** DEFAULT_WATCH_IDLE_TIMEOUT_MS closes a watch that received nothing for 5 minutes. */
const DEFAULT_WATCH_IDLE_TIMEOUT_MS = 5 * 60_000;

const sharedWarningLogger = new WarningLogger();
const RESOLVED = Symbol('@k/rest.ResolvedRestClientOptions');

function durationOption(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new RestConfigurationError(
      `rest client ${name} must be a finite number of milliseconds ≥ 0, got ${describeValue(value)}`,
    );
  }
  return value;
}

function isRateLimiter(value: unknown): value is RateLimiter {
  return (
    typeof (value as Partial<RateLimiter> | undefined)?.acquire === 'function' &&
    typeof (value as Partial<RateLimiter>).tryAcquire === 'function'
  );
}

function throttleFrom(option: unknown): RateLimiter {
  if (option === undefined) return new TokenBucket();
  if (option === 'off') return TokenBucket.unlimited();
  if (isRateLimiter(option)) return option;
  if (typeof option !== 'object' || option === null) {
    throw new RestConfigurationError(
      `throttle must be 'off', { qps, burst } or a rate limiter, got ${describeValue(option)}`,
    );
  }
  const { qps, burst } = option as { qps?: unknown; burst?: unknown };
  if (typeof qps === 'number' && qps > 0 && !(typeof burst === 'number' && burst > 0)) {
    throw new RestConfigurationError(
      'burst is required to be greater than 0 when RateLimiter is not set and QPS is set to greater than 0',
    );
  }
  return new TokenBucket(option);
}

function retryFrom(option: unknown): RetryPolicy {
  if (option instanceof RetryPolicy) return option;
  if (option !== undefined && (typeof option !== 'object' || option === null)) {
    throw new RestConfigurationError(
      `retry must be retry policy options or a RetryPolicy, got ${describeValue(option)}`,
    );
  }
  // A policy from another copy of the package works too: it has decide().
  if (typeof (option as { decide?: unknown } | undefined)?.decide === 'function') {
    return option as RetryPolicy;
  }
  return new RetryPolicy(option);
}

/**
 * resolveRestClientOptions turns input options into the options a client runs with — every
 * default and every check lives here, once: createRestClient, `new RestClient`, the DI factories
 * and @k/clientset all call it. `config` supplies the request timeout when the options do not.
 * Resolved options given back are returned as they are. Throws `RestConfigurationError`.
 */
export function resolveRestClientOptions(
  options: RestClientOptions | ResolvedRestClientOptions = {},
  config?: Pick<ResolvedConfig, 'timeoutMs'>,
): ResolvedRestClientOptions {
  if (typeof options !== 'object' || options === null) {
    throw new RestConfigurationError(
      `rest client options must be an object, got ${describeValue(options)}`,
    );
  }
  if ((options as { [RESOLVED]?: true })[RESOLVED]) return options as ResolvedRestClientOptions;
  const input = options as RestClientOptions;
  if (input.groupVersion !== undefined && typeof input.groupVersion !== 'string') {
    throw new RestConfigurationError(
      `rest client groupVersion must be a string, got ${describeValue(input.groupVersion)}`,
    );
  }
  for (const name of ['warningHandler', 'clock'] as const) {
    if (input[name] !== undefined && (typeof input[name] !== 'object' || input[name] === null)) {
      throw new RestConfigurationError(
        `rest client ${name} must be an object, got ${describeValue(input[name])}`,
      );
    }
  }
  if (input.protobuf !== undefined && typeof input.protobuf !== 'boolean') {
    throw new RestConfigurationError(
      `rest client protobuf must be a boolean, got ${describeValue(input.protobuf)}`,
    );
  }
  for (const name of ['onRetry', 'onThrottle'] as const) {
    if (input[name] !== undefined && typeof input[name] !== 'function') {
      throw new RestConfigurationError(
        `rest client ${name} must be a function, got ${describeValue(input[name])}`,
      );
    }
  }
  const configured =
    durationOption('timeoutMs', input.timeoutMs) ??
    (config?.timeoutMs !== undefined && config.timeoutMs > 0 ? config.timeoutMs : undefined);
  const resolved: ResolvedRestClientOptions & { [RESOLVED]: true } = {
    groupVersion: input.groupVersion ?? 'v1',
    timeoutMs: configured !== undefined && configured > 0 ? configured : undefined,
    clientTimeoutMs: configured ?? DEFAULT_REQUEST_TIMEOUT_MS,
    watchIdleTimeoutMs:
      durationOption('watchIdleTimeoutMs', input.watchIdleTimeoutMs) ??
      DEFAULT_WATCH_IDLE_TIMEOUT_MS,
    throttle: throttleFrom(input.throttle),
    retry: retryFrom(input.retry),
    warningHandler: input.warningHandler ?? sharedWarningLogger,
    onRetry: input.onRetry,
    onThrottle: input.onThrottle,
    clock: input.clock ?? systemClock,
    protobuf: input.protobuf ?? true,
    [RESOLVED]: true,
  };
  return Object.freeze(resolved);
}

/** withGroupVersionOf returns resolved options that differ from `options` only in the group version. */
export function withGroupVersionOf(
  options: ResolvedRestClientOptions,
  groupVersion: string,
): ResolvedRestClientOptions {
  if (typeof groupVersion !== 'string') {
    throw new RestConfigurationError(
      `groupVersion must be a string, got ${describeValue(groupVersion)}`,
    );
  }
  return Object.freeze({ ...options, groupVersion, [RESOLVED]: true as const });
}
