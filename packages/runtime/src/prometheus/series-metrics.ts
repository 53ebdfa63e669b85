import { validateMetricName, type Registry } from 'prom-client';
import { RuntimeError } from '../errors.js';
import type { MetricLabels } from '../metrics/metrics-sink.js';

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** The part of a prom-client Registry a series metric registers in (either content type). */
type MetricRegistry = Pick<Registry, 'registerMetric'>;

/** One exported sample, in the shape prom-client's `metric.get()` gives (`getMetricsAsJSON`). */
interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
  /** exemplar is what prom-client reports for a histogram bucket without exemplars: null. */
  exemplar?: null;
}

/** What a prom-client Registry reads from a metric it renders. */
interface MetricSnapshot {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: Sample[];
  aggregator: 'sum';
}

/**
 * SeriesMetric is a counter or histogram that lives in a prom-client Registry beside
 * prom-client's own metrics and renders exactly as they do, but finds its series cheaply.
 * prom-client checks and hashes the labels on every call (about a microsecond, and a workqueue
 * records three metrics per item); this looks a frozen labels object up by identity, which is
 * how @k/runtime passes them, and hashes anything else once per call as prom-client does.
 */
abstract class SeriesMetric<S extends { labels: Record<string, string | number> }> {
  // name is written by the registry when it renders OpenMetrics (counters gain `_total`).
  name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly aggregator = 'sum' as const;
  abstract readonly type: 'counter' | 'histogram';
  #byLabels = new WeakMap<object, S>();
  readonly #byKey = new Map<string, S>();

  constructor(name: string, help: string, labelNames: readonly string[], registry: MetricRegistry) {
    if (!validateMetricName(name)) {
      throw new RuntimeError('ERR_RUNTIME_CONFIGURATION', `invalid metric name ${name}`);
    }
    for (const label of labelNames) {
      if (!LABEL_NAME.test(label) || label.startsWith('__')) {
        throw new RuntimeError(
          'ERR_RUNTIME_CONFIGURATION',
          `metric ${name}: invalid label name ${label}`,
        );
      }
    }
    this.name = name;
    this.help = help;
    this.labelNames = [...labelNames];
    // Registered as prom-client's metrics register themselves; the registry only reads
    // name, help, type, aggregator and get(), and calls reset().
    registry.registerMetric(this as unknown as Parameters<MetricRegistry['registerMetric']>[0]);
  }

  protected abstract newSeries(labels: Record<string, string | number>): S;
  protected abstract samples(series: S): Sample[];

  /** series finds (or starts) the series of `labels`. */
  protected series(labels: MetricLabels): S {
    const known = this.#byLabels.get(labels);
    if (known) return known;
    let key = '';
    for (const label in labels) {
      if (!this.labelNames.includes(label)) {
        throw new RuntimeError(
          'ERR_RUNTIME_CONFIGURATION',
          `metric ${this.name}: label ${label} is not one of ${this.labelNames.join(', ')}`,
        );
      }
    }
    for (const label of this.labelNames) key += `${label}:${labels[label] ?? ''},`;
    let series = this.#byKey.get(key);
    if (!series) {
      series = this.newSeries({ ...labels });
      this.#byKey.set(key, series);
    }
    // Only a frozen object is sure to name the same series next time.
    if (Object.isFrozen(labels)) this.#byLabels.set(labels, series);
    return series;
  }

  get(): Promise<MetricSnapshot> {
    const values: Sample[] = [];
    for (const series of this.#byKey.values()) values.push(...this.samples(series));
    return Promise.resolve({
      name: this.name,
      help: this.help,
      type: this.type,
      values,
      aggregator: this.aggregator,
    });
  }

  reset(): void {
    this.#byKey.clear();
    this.#byLabels = new WeakMap();
    if (this.labelNames.length === 0) this.series(Object.freeze({}));
  }
}

interface CounterSeries {
  labels: Record<string, string | number>;
  value: number;
}

/** SeriesCounter is a Prometheus counter; see {@link SeriesMetric}. */
export class SeriesCounter extends SeriesMetric<CounterSeries> {
  readonly type = 'counter' as const;

  constructor(name: string, help: string, labelNames: readonly string[], registry: MetricRegistry) {
    super(name, help, labelNames, registry);
    this.reset();
  }

  inc(labels: MetricLabels, value = 1): void {
    if (!Number.isFinite(value) || value < 0) {
      throw new RuntimeError(
        'ERR_RUNTIME_CONFIGURATION',
        `counter ${this.name}: cannot add ${value} (a counter only goes up, by finite amounts)`,
      );
    }
    this.series(labels).value += value;
  }

  protected newSeries(labels: Record<string, string | number>): CounterSeries {
    return { labels, value: 0 };
  }

  protected samples(series: CounterSeries): Sample[] {
    return [{ labels: series.labels, value: series.value }];
  }
}

interface HistogramSeries {
  labels: Record<string, string | number>;
  /** counts[i] is how many observations fell in bucket i alone (not cumulative). */
  counts: Float64Array;
  sum: number;
  count: number;
}

/** SeriesHistogram is a Prometheus histogram; see {@link SeriesMetric}. */
export class SeriesHistogram extends SeriesMetric<HistogramSeries> {
  readonly type = 'histogram' as const;
  readonly buckets: readonly number[];

  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    buckets: readonly number[],
    registry: MetricRegistry,
  ) {
    if (labelNames.includes('le')) {
      throw new RuntimeError('ERR_RUNTIME_CONFIGURATION', `histogram ${name}: le is reserved`);
    }
    super(name, help, labelNames, registry);
    this.buckets = [...buckets];
    this.reset();
  }

  observe(labels: MetricLabels, value: number): void {
    if (!Number.isFinite(value)) {
      throw new RuntimeError(
        'ERR_RUNTIME_CONFIGURATION',
        `histogram ${this.name}: cannot observe ${value}`,
      );
    }
    const series = this.series(labels);
    series.sum += value;
    series.count += 1;
    const buckets = this.buckets;
    for (let index = 0; index < buckets.length; index++) {
      if (value <= (buckets[index] as number)) {
        (series.counts[index] as number) += 1;
        return;
      }
    }
  }

  protected newSeries(labels: Record<string, string | number>): HistogramSeries {
    return { labels, counts: new Float64Array(this.buckets.length), sum: 0, count: 0 };
  }

  protected samples(series: HistogramSeries): Sample[] {
    const bucketName = `${this.name}_bucket`;
    const samples: Sample[] = [];
    let cumulative = 0;
    this.buckets.forEach((bound, index) => {
      cumulative += series.counts[index] as number;
      samples.push({
        labels: { le: bound, ...series.labels },
        value: cumulative,
        metricName: bucketName,
        exemplar: null,
      });
    });
    samples.push(
      {
        labels: { le: '+Inf', ...series.labels },
        value: series.count,
        metricName: bucketName,
        exemplar: null,
      },
      { labels: { ...series.labels }, value: series.sum, metricName: `${this.name}_sum` },
      { labels: { ...series.labels }, value: series.count, metricName: `${this.name}_count` },
    );
    return samples;
  }
}
