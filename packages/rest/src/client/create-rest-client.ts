import type { ResolvedConfig } from '@k/config';
import { createTransport, type TransportOptions } from '@k/transport';
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
