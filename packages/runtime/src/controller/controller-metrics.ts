import {
  exponentialBuckets,
  type Counter,
  type Gauge,
  type Histogram,
  type MetricsSink,
} from '../metrics/metrics-sink.js';

/** ControllerMetrics are controller-runtime's reconcile metrics of one controller. */
export interface ControllerMetrics {
  labels: Readonly<Record<string, string>>;
  total: Counter;
  errors: Counter;
  terminalErrors: Counter;
  time: Histogram;
  maxConcurrent: Gauge;
  activeWorkers: Gauge;
}

/** controllerMetrics registers (or finds) controller-runtime's metrics in `sink` for `controller`. */
export function controllerMetrics(sink: MetricsSink, controller: string): ControllerMetrics {
  const metrics = buildControllerMetrics(sink, controller);
  // Every series exists from the start (controller-runtime's), so rates and alerts see zeros.
  for (const result of ['success', 'error', 'requeue_after']) {
    metrics.total.inc({ controller, result }, 0);
  }
  metrics.errors.inc(metrics.labels, 0);
  metrics.terminalErrors.inc(metrics.labels, 0);
  metrics.activeWorkers.set(metrics.labels, 0);
  return metrics;
}

function buildControllerMetrics(sink: MetricsSink, controller: string): ControllerMetrics {
  return {
    labels: Object.freeze({ controller }),
    total: sink.counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
    }),
    errors: sink.counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
    }),
    terminalErrors: sink.counter({
      name: 'controller_runtime_terminal_reconcile_errors_total',
      help: 'Total number of terminal reconciliation errors per controller',
      labelNames: ['controller'],
    }),
    time: sink.histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: [
        ...exponentialBuckets(0.005, 2, 10).filter((bound) => bound < 1),
        1,
        1.25,
        1.5,
        1.75,
        2,
        2.5,
        3,
        3.5,
        4,
        4.5,
        5,
        6,
        7,
        8,
        9,
        10,
        15,
        20,
        25,
        30,
        40,
        50,
        60,
      ],
    }),
    maxConcurrent: sink.gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'],
    }),
    activeWorkers: sink.gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'],
    }),
  };
}
