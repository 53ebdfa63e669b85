import {
  exponentialBuckets,
  type Counter,
  type Histogram,
  type MetricsSink,
} from '../metrics/metrics-sink.js';

const LABELS = ['name', 'controller'] as const;
// client-go's: 10 ns to 1000 s.
const DURATION_BUCKETS = exponentialBuckets(10e-9, 10, 12);

/** WorkqueueMetrics are the metrics of one named queue, under client-go's workqueue names. */
export interface WorkqueueMetrics {
  adds: Counter;
  queueDuration: Histogram;
  workDuration: Histogram;
  retries: Counter;
  labels: Readonly<Record<string, string>>;
}

/** OpenWork reports what a queue is working on, for the gauges measured at scrape time. */
export interface OpenWork {
  /** depth is how many keys are queued. */
  depth(): number;
  /** unfinishedWorkSeconds adds up how long every key being processed has been processed. */
  unfinishedWorkSeconds(): number;
  /** longestRunningProcessorSeconds is how long the oldest key being processed has been processed. */
  longestRunningProcessorSeconds(): number;
}

/**
 * workqueueMetrics registers (or finds) the workqueue metrics in `sink`, labelled by `name`.
 * The gauges are read at scrape time (`collect`), not kept up to date on every add and get: a
 * gauge update costs more than the queue operation itself with prom-client.
 */
export function workqueueMetrics(
  sink: MetricsSink,
  name: string,
  openWork: OpenWork,
): WorkqueueMetrics {
  // Frozen: a metrics sink may find the series by this object (see @k/runtime/prometheus).
  const labels = Object.freeze({ name, controller: name });
  sink.gauge({
    name: 'workqueue_depth',
    help: 'Current depth of workqueue',
    labelNames: LABELS,
    collect: (gauge) => gauge.set(labels, openWork.depth()),
  });
  sink.gauge({
    name: 'workqueue_unfinished_work_seconds',
    help: 'How many seconds of work has been done that is in progress and has not been observed by work_duration. Large values indicate stuck threads.',
    labelNames: LABELS,
    collect: (gauge) => gauge.set(labels, openWork.unfinishedWorkSeconds()),
  });
  sink.gauge({
    name: 'workqueue_longest_running_processor_seconds',
    help: 'How many seconds has the longest running processor for workqueue been running.',
    labelNames: LABELS,
    collect: (gauge) => gauge.set(labels, openWork.longestRunningProcessorSeconds()),
  });
  return {
    labels,
    adds: sink.counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: LABELS,
    }),
    queueDuration: sink.histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: LABELS,
      buckets: DURATION_BUCKETS,
    }),
    workDuration: sink.histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes.',
      labelNames: LABELS,
      buckets: DURATION_BUCKETS,
    }),
    retries: sink.counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: LABELS,
    }),
  };
}
