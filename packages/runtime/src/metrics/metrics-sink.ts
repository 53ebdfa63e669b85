/** MetricLabels are a metric's label values by label name. */
export type MetricLabels = Readonly<Record<string, string>>;

/** Counter only goes up (`*_total`). */
export interface Counter {
  inc(labels: MetricLabels, value?: number): void;
}

/** Gauge is a value that goes up and down (`workqueue_depth`). */
export interface Gauge {
  set(labels: MetricLabels, value: number): void;
  inc(labels: MetricLabels, value?: number): void;
  dec(labels: MetricLabels, value?: number): void;
}

/** Histogram counts observations into buckets (`*_duration_seconds`). */
export interface Histogram {
  observe(labels: MetricLabels, value: number): void;
}

/** MetricDefinition names a metric, documents it and lists its label names. */
export interface MetricDefinition {
  name: string;
  help: string;
  labelNames: readonly string[];
}

/** HistogramDefinition adds the bucket upper bounds (seconds). */
export interface HistogramDefinition extends MetricDefinition {
  buckets: readonly number[];
}

/**
 * GaugeDefinition may add `collect`, run before each scrape to set values measured on demand.
 * Each `collect` given for one name runs (many queues measure their own series of one gauge).
 */
export interface GaugeDefinition extends MetricDefinition {
  collect?: ((gauge: Gauge) => void) | undefined;
}

/**
 * MetricsSink is where @k/runtime records its metrics, under controller-runtime's names
 * (`workqueue_depth`, `controller_runtime_reconcile_total`, …) so existing dashboards work. The
 * default records nothing ({@link NOOP_METRICS}); `@k/runtime/prometheus` adapts prom-client.
 * Asking twice for the same name returns the same metric (a sink must allow it: many queues
 * share one metric, told apart by their `name` label).
 */
export interface MetricsSink {
  counter(definition: MetricDefinition): Counter;
  gauge(definition: GaugeDefinition): Gauge;
  histogram(definition: HistogramDefinition): Histogram;
}

const noop = (): void => {};
const NOOP_METRIC: Counter & Gauge & Histogram = {
  inc: noop,
  dec: noop,
  set: noop,
  observe: noop,
};

/** NOOP_METRICS is the default {@link MetricsSink}: it records nothing and costs nothing. */
export const NOOP_METRICS: MetricsSink = {
  counter: () => NOOP_METRIC,
  gauge: () => NOOP_METRIC,
  histogram: () => NOOP_METRIC,
};

/** exponentialBuckets is `count` bucket bounds from `start`, each `factor` times the last (Prometheus's). */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  return Array.from({ length: count }, (_, index) => start * factor ** index);
}

/** MetricsExposition is a scrape: the body in a Prometheus exposition format and its content type. */
export interface MetricsExposition {
  contentType: string;
  body: string;
}

/**
 * ScrapableMetricsSink is a {@link MetricsSink} that can render what it recorded, which is what
 * a Manager's `/metrics` serves (the prom-client adapter of `@k/runtime/prometheus` is one).
 */
export interface ScrapableMetricsSink extends MetricsSink {
  scrape(): Promise<MetricsExposition>;
}

/** isScrapable tells whether `sink` can render its metrics for `/metrics`. */
export function isScrapable(sink: MetricsSink): sink is ScrapableMetricsSink {
  return typeof (sink as Partial<ScrapableMetricsSink>).scrape === 'function';
}
