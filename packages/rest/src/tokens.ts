import type { ApiServerDispatcher } from '@k/transport';
import type { InjectionToken } from 'tsyringe';
import type { RestClientOptions } from './client/rest-client-options.js';
import type { RestClient } from './client/rest-client.js';
import type { WarningHandler } from './response/warning-handler.js';
import type { RetryPolicy } from './retry/retry-policy.js';
import type { RateLimiter } from './throttle/token-bucket.js';

/**
 * REST_TRANSPORT is what the container's clients send through: an `ApiServerDispatcher`,
 * by default @k/transport's `TRANSPORT`.
 */
export const REST_TRANSPORT: InjectionToken<ApiServerDispatcher> =
  Symbol.for('@k/rest.RestTransport');

/** RATE_LIMITER is the one throttle shared by every client of the container (a `TokenBucket`). */
export const RATE_LIMITER: InjectionToken<RateLimiter> = Symbol.for('@k/rest.RateLimiter');

/** RETRY_POLICY is the retry policy of the container's clients. */
export const RETRY_POLICY: InjectionToken<RetryPolicy> = Symbol.for('@k/rest.RetryPolicy');

/** WARNING_HANDLER receives the server's `Warning` headers (default: a deduplicating logger). */
export const WARNING_HANDLER: InjectionToken<WarningHandler> = Symbol.for('@k/rest.WarningHandler');

/**
 * REST_CLIENT_OPTIONS are the input options of the container's `RestClient` (timeouts, group
 * version); throttle, retry and warnings come from their own tokens.
 */
export const REST_CLIENT_OPTIONS: InjectionToken<RestClientOptions> = Symbol.for(
  '@k/rest.RestClientOptions',
);

/** REST_CLIENT is the container's core-group (`v1`) `RestClient`; derive others with `withGroupVersion`. */
export const REST_CLIENT: InjectionToken<RestClient> = Symbol.for('@k/rest.RestClient');
