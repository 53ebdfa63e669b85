import type { MetricsSink } from '../metrics/metrics-sink.js';
import type { Informer } from './informer.js';
import type { ReflectorHealthObserver } from './reflector-health.js';

// client-go has no informer metrics any more (its reflector metrics were removed), so these are
// named after what they count, with the `resource` an informer describes itself by.

/** informerCounters counts one informer's relists, watch restarts and failures (by error code). */
export function informerCounters(sink: MetricsSink, resource: string): ReflectorHealthObserver {
  const relists = sink.counter({
    name: 'informer_relists_total',
    help: 'Number of lists an informer made after its first one (after 410 Gone or a failed watch).',
    labelNames: ['resource'],
  });
  const restarts = sink.counter({
    name: 'informer_watch_restarts_total',
    help: 'Number of watches an informer reopened from its last resourceVersion without a relist.',
    labelNames: ['resource'],
  });
  const failures = sink.counter({
    name: 'informer_failures_total',
    help: 'Number of list and watch failures of an informer, by error code.',
    labelNames: ['resource', 'code'],
  });
  const labels = Object.freeze({ resource });
  return {
    relisted: () => relists.inc(labels),
    watchRestarted: () => restarts.inc(labels),
    failed: (error) => failures.inc({ resource, code: error.code }),
  };
}

/** MeasuredInformer is what the gauges read of an informer, whatever its kind. */
type MeasuredInformer = Pick<Informer, 'resource' | 'hasSynced' | 'health'> & {
  readonly store: { readonly size: number };
};

/**
 * informerGauges registers gauges measured at each scrape over `informers()`:
 * `informer_synced`, `informer_ready` (1 or 0, see `Informer.health`) and `informer_objects`
 * (objects in the cache), labelled by `resource`. A sink keeps the first registration of a
 * name, so register once per sink.
 */
export function informerGauges(
  sink: MetricsSink,
  informers: () => readonly MeasuredInformer[],
): void {
  const each =
    (measure: (informer: MeasuredInformer) => number) =>
    (gauge: { set(labels: { resource: string }, value: number): void }) => {
      for (const informer of informers())
        gauge.set({ resource: informer.resource }, measure(informer));
    };
  sink.gauge({
    name: 'informer_synced',
    help: 'Whether an informer has synced its first list (1) or not (0).',
    labelNames: ['resource'],
    collect: each((informer) => (informer.hasSynced ? 1 : 0)),
  });
  sink.gauge({
    name: 'informer_ready',
    help: 'Whether an informer is synced and its last list or watch did not fail (1) or not (0).',
    labelNames: ['resource'],
    collect: each((informer) => (informer.health().ready ? 1 : 0)),
  });
  sink.gauge({
    name: 'informer_objects',
    help: 'Number of objects in an informer cache.',
    labelNames: ['resource'],
    collect: each((informer) => informer.store.size),
  });
}
