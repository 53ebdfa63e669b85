// @k/runtime/metrics: the small sink interface the runtime records into (Prometheus adapter:
// `@k/runtime/prometheus`), and what instruments a clientset: request metrics, throttle waits.
export { NOOP_METRICS, exponentialBuckets, isScrapable } from './metrics/metrics-sink.js';
export type {
  Counter,
  Gauge,
  GaugeDefinition,
  Histogram,
  HistogramDefinition,
  MetricDefinition,
  MetricLabels,
  MetricsExposition,
  MetricsSink,
  ScrapableMetricsSink,
} from './metrics/metrics-sink.js';
export {
  restClientInstrumentation,
  restClientMetricsInterceptor,
} from './metrics/rest-client-metrics.js';
export type {
  RestClientInstrumentation,
  RestClientInstrumentationOptions,
} from './metrics/rest-client-metrics.js';
