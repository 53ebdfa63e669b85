import { RESOLVED_CONFIG, TRANSPORT } from '@k/transport';
import type { DependencyContainer } from 'tsyringe';
import {
  RestClient,
  type RestClientOptions,
  type RestTransport,
  type ServerDispatcher,
} from './client/rest-client.js';
import { RestConfigurationError } from './errors.js';
import { WarningLogger, type WarningHandler } from './response/warning-handler.js';
import { RetryPolicy, type RetryPolicyOptions } from './retry/retry-policy.js';
import { TokenBucket, type RateLimiter, type TokenBucketOptions } from './throttle/token-bucket.js';
import {
  RATE_LIMITER,
  REST_CLIENT,
  REST_CLIENT_OPTIONS,
  REST_TRANSPORT,
  RETRY_POLICY,
  WARNING_HANDLER,
} from './tokens.js';

/** RegisterRestOptions configure {@link registerRest}. */
export interface RegisterRestOptions {
  /**
   * transport to send through. Default: `REST_TRANSPORT` if registered, else @k/transport's
   * `TRANSPORT` (from `registerTransport`).
   */
  transport?: RestTransport | ServerDispatcher;
  /** throttle: token bucket settings (client-go defaults: 5 qps, burst 10), `'off'`, or a limiter. */
  throttle?: TokenBucketOptions | RateLimiter | 'off';
  retry?: RetryPolicyOptions | RetryPolicy;
  warningHandler?: WarningHandler;
  client?: RestClientOptions;
}

function once<T>(
  create: (container: DependencyContainer) => T,
): (container: DependencyContainer) => T {
  let created: { value: T } | undefined;
  return (container) => (created ??= { value: create(container) }).value;
}

function isRateLimiter(value: unknown): value is RateLimiter {
  return typeof (value as RateLimiter | undefined)?.acquire === 'function';
}

/**
 * registerRest wires @k/rest into `container` (the caller's; never tsyringe's global one) with
 * factories, each creating its instance once per container: `RATE_LIMITER` (one token bucket for
 * every client of the container), `RETRY_POLICY`, `WARNING_HANDLER`, `REST_CLIENT_OPTIONS` and
 * `REST_CLIENT` (core group; derive others with `withGroupVersion`). `REST_TRANSPORT` is
 * `options.transport`, else what is already registered, else @k/transport's `TRANSPORT`; the
 * client options default the timeout to `RESOLVED_CONFIG`'s. Registering twice is an error.
 */
export function registerRest(
  container: DependencyContainer,
  options: RegisterRestOptions = {},
): DependencyContainer {
  if (container.isRegistered(REST_CLIENT, false)) {
    throw new RestConfigurationError('@k/rest is already registered in this container');
  }
  if (options.transport) {
    container.register(REST_TRANSPORT, { useValue: options.transport });
  } else if (!container.isRegistered(REST_TRANSPORT, true)) {
    container.register(REST_TRANSPORT, { useFactory: (resolver) => resolver.resolve(TRANSPORT) });
  }
  const throttle = options.throttle;
  container.register(RATE_LIMITER, {
    useFactory: once(() =>
      isRateLimiter(throttle)
        ? throttle
        : throttle === 'off'
          ? TokenBucket.unlimited()
          : new TokenBucket(throttle),
    ),
  });
  const retry = options.retry;
  container.register(RETRY_POLICY, {
    useFactory: once(() => (retry instanceof RetryPolicy ? retry : new RetryPolicy(retry))),
  });
  container.register(WARNING_HANDLER, {
    useFactory: once(() => options.warningHandler ?? new WarningLogger()),
  });
  container.register(REST_CLIENT_OPTIONS, {
    useFactory: once((resolver) => {
      // The configuration's request timeout applies unless the options say otherwise.
      const timeoutMs = resolver.isRegistered(RESOLVED_CONFIG, true)
        ? resolver.resolve(RESOLVED_CONFIG).timeoutMs
        : undefined;
      return {
        ...(timeoutMs !== undefined && timeoutMs > 0 ? { timeoutMs } : {}),
        ...options.client,
      };
    }),
  });
  container.register(REST_CLIENT, {
    useFactory: once(
      (resolver) =>
        new RestClient(
          resolver.resolve(REST_TRANSPORT),
          resolver.resolve(RATE_LIMITER),
          resolver.resolve(RETRY_POLICY),
          {
            ...resolver.resolve(REST_CLIENT_OPTIONS),
            warningHandler: resolver.resolve(WARNING_HANDLER),
          },
        ),
    ),
  });
  return container;
}
