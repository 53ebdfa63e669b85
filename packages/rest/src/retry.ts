// @k/rest/retry: what a `RetryPolicy` decides on, for policies that extend it.
export type { AttemptOutcome, RetryDecision, RetryRequest } from './retry/retry-policy.js';
export { parseRetryAfter } from './retry/retry-policy.js';
