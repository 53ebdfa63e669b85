import type { ResolvedConfig } from '@k/config';
import { createTransport, type TransportOptions } from '@k/transport';
import { describeValue } from '../describe-value.js';
import { RestConfigurationError } from '../errors.js';
import { RetryPolicy, type RetryPolicyOptions } from '../retry/retry-policy.js';
import {
  TokenBucket,
  type RateLimiter,
  type TokenBucketOptions,
} from '../throttle/token-bucket.js';
import { RestClient, type RestClientOptions } from './rest-client.js';

/** CreateRestClientOptions configure {@link createRestClient}. */
export interface CreateRestClientOptions extends RestClientOptions {
  /** throttle: token bucket settings (client-go defaults: 5 qps, burst 10), `'off'`, or a limiter. */
  throttle?: TokenBucketOptions | RateLimiter | 'off';
  retry?: RetryPolicyOptions | RetryPolicy;
  /** transport options for `createTransport` (user agent, pools, auth plugins). */
  transport?: TransportOptions;
}

/**
 * createRestClient builds a {@link RestClient} for a resolved configuration: a @k/transport
 * `Transport` (TLS, auth, impersonation, proxy, user agent), a new token bucket and retry policy,
 * and the configuration's request timeout. Derive clients for other API groups with
 * `withGroupVersion` so they share the bucket. The caller owns the transport: close it with
 * `await client.dispatcher.close()`.
 */
export function createRestClient(
  config: ResolvedConfig,
  options: CreateRestClientOptions = {},
): RestClient {
  if (typeof config !== 'object' || config === null) {
    throw new RestConfigurationError(
      `createRestClient needs a resolved configuration (from @k/config's resolveConfig or inferConfig), got ${describeValue(config)}`,
    );
  }
  if (typeof options !== 'object' || options === null) {
    throw new RestConfigurationError(
      `createRestClient options must be an object, got ${describeValue(options)}`,
    );
  }
  if (
    options.throttle !== undefined &&
    options.throttle !== 'off' &&
    (typeof options.throttle !== 'object' || options.throttle === null)
  ) {
    throw new RestConfigurationError(
      `throttle must be 'off', token bucket options or a rate limiter, got ${describeValue(options.throttle)}`,
    );
  }
  if (
    options.retry !== undefined &&
    (typeof options.retry !== 'object' || options.retry === null)
  ) {
    throw new RestConfigurationError(
      `retry must be retry policy options or a RetryPolicy, got ${describeValue(options.retry)}`,
    );
  }
  const { throttle, retry, transport: transportOptions, ...clientOptions } = options;
  const limiter =
    throttle === 'off'
      ? TokenBucket.unlimited()
      : throttle !== undefined && 'acquire' in throttle
        ? throttle
        : new TokenBucket(throttle);
  const policy = retry instanceof RetryPolicy ? retry : new RetryPolicy(retry);
  const transport = createTransport(config, transportOptions);
  return new RestClient(transport, limiter, policy, {
    ...(config.timeoutMs !== undefined && config.timeoutMs > 0
      ? { timeoutMs: config.timeoutMs }
      : {}),
    ...clientOptions,
  });
}
