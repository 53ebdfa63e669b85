// @k/runtime/prometheus: the MetricsSink on prom-client (an optional peer dependency; see
// docs/decisions/0013-prom-client-as-optional-peer.md).
import {
  Counter as PromCounter,
  Gauge as PromGauge,
  Histogram as PromHistogram,
  Registry,
  collectDefaultMetrics,
} from 'prom-client';
import { RuntimeError } from './errors.js';
import { SeriesCounter, SeriesHistogram } from './prometheus/series-metrics.js';
import type {
  Counter,
  Gauge,
  GaugeDefinition,
  Histogram,
  HistogramDefinition,
  MetricDefinition,
  MetricsExposition,
  ScrapableMetricsSink,
} from './metrics/metrics-sink.js';

/** PrometheusMetricsOptions configure {@link PrometheusMetrics}. */
export interface PrometheusMetricsOptions {
  /** registry to register in (default: a new one, so two sinks never collide; pass prom-client's `register` to share the global one). */
  registry?: Registry | undefined;
  /** processMetrics adds prom-client's default process metrics (`process_cpu_seconds_total`, heap, event loop lag; default true). */
  processMetrics?: boolean | undefined;
}

/**
 * PrometheusMetrics is the {@link ScrapableMetricsSink} on prom-client: each metric @k/runtime
 * asks for is registered in `registry` under the same name (controller-runtime's and client-go's
 * names), and `scrape()` renders the registry in Prometheus's text format, which a Manager serves
 * at `/metrics`. Gauges are prom-client Gauges; counters and histograms are series metrics that
 * render exactly as prom-client's do but cost a fraction per call (a workqueue records three per
 * item). A Counter or Histogram the application registered under one of those names first is
 * used as it is. Asking twice for one name returns the metric registered first; a name taken by
 * another kind of metric is an `ERR_RUNTIME_CONFIGURATION`.
 */
export class PrometheusMetrics implements ScrapableMetricsSink {
  readonly registry: Registry;
  readonly #collects = new Map<string, (() => void)[]>();

  constructor(options: PrometheusMetricsOptions = {}) {
    this.registry = options.registry ?? new Registry();
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** #existing is `metric` (what `name` is registered as) when it is a `type`, or undefined. */
  #existing<M>(
    name: string,
    metric: object | undefined,
    type: abstract new (...args: never[]) => M,
  ): M | undefined {
    if (metric === undefined) return undefined;
    if (!(metric instanceof type)) {
      throw new RuntimeError(
        'ERR_RUNTIME_CONFIGURATION',
        `metric ${name} is already registered as another type`,
      );
    }
    return metric;
  }

  counter(definition: MetricDefinition): Counter {
    const registered = this.registry.getSingleMetric(definition.name);
    if (registered instanceof SeriesCounter) return registered;
    // A Counter the application registered itself under this name is used as it is.
    const metric = this.#existing(definition.name, registered, PromCounter);
    if (metric) return { inc: (labels, value) => metric.inc(labels, value ?? 1) };
    return new SeriesCounter(
      definition.name,
      definition.help,
      definition.labelNames,
      this.registry,
    );
  }

  gauge(definition: GaugeDefinition): Gauge {
    const registered = this.registry.getSingleMetric(definition.name);
    const metric =
      this.#existing(definition.name, registered, PromGauge) ?? this.#newGauge(definition);
    const adapter: Gauge = {
      set: (labels, value) => metric.set(labels, value),
      inc: (labels, value) => metric.inc(labels, value ?? 1),
      dec: (labels, value) => metric.dec(labels, value ?? 1),
    };
    if (definition.collect) {
      const collect = definition.collect;
      let collects = this.#collects.get(definition.name);
      if (!collects) this.#collects.set(definition.name, (collects = []));
      collects.push(() => collect(adapter));
    }
    return adapter;
  }

  #newGauge(definition: GaugeDefinition): PromGauge {
    const collects = (): readonly (() => void)[] => this.#collects.get(definition.name) ?? [];
    return new PromGauge({
      name: definition.name,
      help: definition.help,
      labelNames: [...definition.labelNames],
      registers: [this.registry],
      collect() {
        const measures = collects();
        if (measures.length === 0) return;
        // Measured now: the series of things that went away disappear.
        this.reset();
        for (const measure of measures) measure();
      },
    });
  }

  histogram(definition: HistogramDefinition): Histogram {
    const registered = this.registry.getSingleMetric(definition.name);
    if (registered instanceof SeriesHistogram) return registered;
    const metric = this.#existing(definition.name, registered, PromHistogram);
    if (metric) return { observe: (labels, value) => metric.observe(labels, value) };
    return new SeriesHistogram(
      definition.name,
      definition.help,
      definition.labelNames,
      definition.buckets,
      this.registry,
    );
  }

  /** scrape renders every metric of the registry (Prometheus text format 0.0.4). */
  async scrape(): Promise<MetricsExposition> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
