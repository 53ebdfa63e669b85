// @k/runtime/workqueue: client-go's workqueue (dedup, one worker per key, delays) and its rate limiters.
export { Workqueue } from './workqueue/workqueue.js';
export type { WorkqueueOptions } from './workqueue/workqueue.js';
export {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
} from './workqueue/rate-limiters.js';
export type { WorkqueueRateLimiter } from './workqueue/rate-limiters.js';
