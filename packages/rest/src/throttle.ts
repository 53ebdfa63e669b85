// @k/rest/throttle: the client-side rate limiter — client-go's token bucket, and the interface
// of your own (`throttle: yourLimiter`). `{ qps, burst }` in the client's options needs neither.
export { TokenBucket } from './throttle/token-bucket.js';
export type { RateLimiter, TokenBucketOptions } from './throttle/token-bucket.js';
