// Workqueue: dedup, one worker per key, delays and client-go's rate limiters.
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

// Metrics: a small sink interface (Prometheus adapter at @k/runtime/prometheus).
export { NOOP_METRICS, exponentialBuckets } from './metrics/metrics-sink.js';
export type {
  Counter,
  Gauge,
  GaugeDefinition,
  Histogram,
  HistogramDefinition,
  MetricDefinition,
  MetricLabels,
  MetricsSink,
} from './metrics/metrics-sink.js';

// Errors.
export { RuntimeError } from './errors.js';
export type { KRuntimeErrorCode, RuntimeErrorCode } from './errors.js';
