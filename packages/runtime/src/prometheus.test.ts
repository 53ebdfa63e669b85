import { describe, expect, it } from 'vitest';
import { RuntimeError } from './errors.js';
import { PrometheusMetrics } from './prometheus.js';
import { Workqueue } from './workqueue/workqueue.js';

// The prom-client adapter with the real prom-client; the e2e test scrapes a Manager's /metrics.

describe('PrometheusMetrics', () => {
  it('records the workqueue metrics under client-go names, every queue in its own series', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    const widgets = new Workqueue<string>({ name: 'widgets', metrics });
    const gadgets = new Workqueue<string>({ name: 'gadgets', metrics });
    widgets.add('a');
    widgets.add('b');
    widgets.add('a'); // deduplicated, not an add
    gadgets.add('x');
    const key = await gadgets.get(); // being processed at the scrape
    const { body, contentType } = await metrics.scrape();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(body).toContain('workqueue_adds_total{name="widgets",controller="widgets"} 2');
    expect(body).toContain('workqueue_depth{name="widgets",controller="widgets"} 2');
    expect(body).toContain('workqueue_depth{name="gadgets",controller="gadgets"} 0');
    // Measured at the scrape for each queue.
    expect(body).toMatch(
      /workqueue_unfinished_work_seconds\{name="widgets",controller="widgets"\} 0\n/,
    );
    expect(body).toMatch(
      /workqueue_unfinished_work_seconds\{name="gadgets",controller="gadgets"\} \d/,
    );
    expect(body).toContain('# TYPE workqueue_queue_duration_seconds histogram');
    gadgets.done(key!);
    widgets.shutDown();
    gadgets.shutDown();
  });

  it("adds prom-client's process metrics unless told not to", async () => {
    expect((await new PrometheusMetrics().scrape()).body).toContain('process_cpu_seconds_total');
    expect((await new PrometheusMetrics({ processMetrics: false }).scrape()).body).toBe('\n');
  });

  it('returns the metric registered first for a name, and refuses another type under it', () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    const definition = { name: 'things_total', help: 'things', labelNames: ['kind'] };
    metrics.counter(definition).inc({ kind: 'a' });
    metrics.counter(definition).inc({ kind: 'a' }, 2);
    expect(metrics.registry.getSingleMetric('things_total')).toBeDefined();
    expect(() => metrics.gauge(definition)).toThrow(RuntimeError);
    expect(() => metrics.gauge(definition)).toThrow(/already registered as another type/);
  });
});
