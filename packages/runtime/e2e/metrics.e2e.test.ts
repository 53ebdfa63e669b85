import { inferClientset, type Clientset } from '@k/clientset';
import { environment, useTestNamespace } from '@k/envtest/vitest';
import { describe, expect, it } from 'vitest';
import { Manager, SILENT_LOGGER } from '../src/index.js';
import { restClientInstrumentation } from '../src/metrics.js';
import { PrometheusMetrics } from '../src/prometheus.js';
import { eventually } from './helpers.js';

// A Manager with the prom-client sink, on the real server: its /metrics has the workqueue,
// reconcile, informer, leader-election and REST client metrics under client-go's and
// controller-runtime's names; an informer the user may not list shows in its failures, in
// the 403s of the REST client and in a failing /readyz.
const namespace = useTestNamespace({ prefix: 'runtime-metrics' });

function clientset(context: string, metrics: PrometheusMetrics): Promise<Clientset> {
  return inferClientset({
    kubeconfig: environment().kubeconfigPath,
    context,
    throttle: 'off',
    ...restClientInstrumentation({ metrics }),
  });
}

function sample(body: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of body.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const matches = Object.entries(labels).every(([label, value]) =>
      line.includes(`${label}="${value}"`),
    );
    if (matches) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('a Manager with Prometheus metrics', () => {
  it('Manager.create serves the controller-runtime and client-go metrics at /metrics, its own clientset instrumented', async () => {
    const stop = new AbortController();
    // prom-client is installed: Manager.create makes the sink and instruments its clientset.
    const manager = await Manager.create({
      clientsetOptions: { kubeconfig: environment().kubeconfigPath, context: 'admin' },
      logger: SILENT_LOGGER,
      probes: { port: 0, host: '127.0.0.1' },
      metricsServer: { port: 0 },
      leaderElection: {
        namespace: namespace.name,
        name: 'metrics-e2e',
        retryPeriodMs: 500,
        renewDeadlineMs: 2_000,
        leaseDurationMs: 3_000,
      },
    });
    const cs = manager.clientset;
    let reconciles = 0;
    manager
      .controller('metrics-e2e')
      .for(cs.coreV1.configMaps(namespace.name), { labelSelector: { test: 'metrics' } })
      .complete(() => {
        reconciles += 1;
      });
    const done = manager.start(stop.signal);
    try {
      for (const name of ['a', 'b']) {
        await cs.coreV1.configMaps(namespace.name).create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, labels: { test: 'metrics' } },
        });
      }
      await eventually(() => expect(reconciles).toBeGreaterThanOrEqual(2));
      const url = manager.addresses.metrics!.url;
      const response = await fetch(`${url}/metrics`);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const body = await response.text();
      const controller = { controller: 'metrics-e2e' };
      const resource = { resource: `configmaps in namespace ${namespace.name}` };
      const host = new URL(environment().server).host;
      expect(
        sample(body, 'controller_runtime_reconcile_total', { ...controller, result: 'success' }),
      ).toBeGreaterThanOrEqual(2);
      expect(sample(body, 'controller_runtime_reconcile_errors_total', controller)).toBe(0);
      expect(
        sample(body, 'controller_runtime_reconcile_time_seconds_count', controller),
      ).toBeGreaterThanOrEqual(2);
      expect(sample(body, 'controller_runtime_max_concurrent_reconciles', controller)).toBe(1);
      expect(sample(body, 'controller_runtime_active_workers', controller)).toBe(0);
      expect(sample(body, 'workqueue_adds_total', { name: 'metrics-e2e' })).toBeGreaterThanOrEqual(
        2,
      );
      expect(sample(body, 'workqueue_depth', { name: 'metrics-e2e' })).toBe(0);
      expect(
        sample(body, 'workqueue_work_duration_seconds_count', { name: 'metrics-e2e' }),
      ).toBeGreaterThanOrEqual(2);
      expect(sample(body, 'informer_synced', resource)).toBe(1);
      expect(sample(body, 'informer_ready', resource)).toBe(1);
      expect(sample(body, 'informer_objects', resource)).toBe(2);
      expect(sample(body, 'leader_election_master_status', { name: 'metrics-e2e' })).toBe(1);
      expect(
        sample(body, 'rest_client_requests_total', { code: '201', method: 'POST', host }),
      ).toBeGreaterThanOrEqual(2);
      expect(
        sample(body, 'rest_client_requests_total', { code: '200', method: 'GET', host }),
      ).toBeGreaterThanOrEqual(1);
      expect(
        sample(body, 'rest_client_request_duration_seconds_count', { verb: 'GET', host }),
      ).toBeGreaterThanOrEqual(1);
      // Every request took a token of the operator's throttle (20 qps, burst 30).
      expect(
        sample(body, 'rest_client_rate_limiter_duration_seconds_count', { verb: 'POST', host }),
      ).toBeGreaterThanOrEqual(2);
      expect(body).toContain('process_cpu_seconds_total');
    } finally {
      stop.abort();
      await done;
    }
    // The Manager closed its clientset: a request cannot be sent.
    await expect(cs.coreV1.configMaps(namespace.name).list()).rejects.toMatchObject({
      code: 'ERR_REST_CONNECTION',
    });
  });

  it('counts the failures of an informer that is refused, and fails /readyz meanwhile', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    const alice = await clientset('alice', metrics); // every request is 403 Forbidden
    const stop = new AbortController();
    const logged: string[] = [];
    const manager = new Manager({
      probes: { port: 0, host: '127.0.0.1' },
      metricsServer: { port: 0 },
      metrics,
      logger: {
        ...SILENT_LOGGER,
        info: (message, fields) => logged.push(`${message} ${JSON.stringify(fields)}`),
      },
    }).closeOnShutdown(alice);
    manager.informerFor(alice.coreV1.configMaps(namespace.name));
    const done = manager.start(stop.signal);
    try {
      const resource = { resource: `configmaps in namespace ${namespace.name}` };
      const body = await eventually(async () => {
        const text = await (await fetch(`${manager.addresses.metrics!.url}/metrics`)).text();
        expect(sample(text, 'informer_failures_total', resource)).toBeGreaterThanOrEqual(1);
        return text;
      });
      expect(sample(body, 'informer_synced', resource)).toBe(0);
      expect(sample(body, 'rest_client_requests_total', { code: '403' })).toBeGreaterThanOrEqual(1);
      const readyz = await fetch(`${manager.addresses.probes!.url}/readyz`);
      expect(readyz.status).toBe(500);
      // The reason names the user and the namespace: logged, not served.
      const answer = await readyz.text();
      expect(answer).toContain('[-]informers failed: reason withheld');
      expect(answer).not.toMatch(/alice|forbidden/i);
      expect(logged.join('\n')).toMatch(
        /health check failed .*"check":"informers".*configmaps in namespace \S+ not synced \(.*forbidden/i,
      );
    } finally {
      stop.abort();
      await done;
    }
  });
});
