import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClientset, type KubernetesObject } from '@k/clientset';
import { testResolvedConfig } from '@k/config/testing';
import type { TokenBucket } from '@k/rest/throttle';
import { FakeClock } from '@k/rest/testing';
import { MemorySource, statusError } from '../__fixtures__/memory-source.js';
import type { Controller, Reconciler } from '../controller/controller.js';
import { ControllerBuilder } from '../controller/controller-builder.js';
import { RuntimeError } from '../errors.js';
import { LeaseServer } from '../leader-election/__fixtures__/lease-server.js';
import { SILENT_LOGGER, type Logger } from '../logger.js';
import type { ScrapableMetricsSink } from '../metrics/metrics-sink.js';
import { NOOP_METRICS } from '../metrics/metrics-sink.js';
import { PrometheusMetrics } from '../prometheus.js';
import { Manager } from './manager.js';
import type { Runnable } from './runnable.js';

// The Manager's own lifecycle and HTTP server, with runnables that are plain functions; the
// informers, controllers and leader election against the real server are in e2e/manager*.

async function get(url: string): Promise<{ status: number; body: string; type: string | null }> {
  const response = await fetch(url);
  return {
    status: response.status,
    body: await response.text(),
    type: response.headers.get('content-type'),
  };
}

function startedManager(manager: Manager): {
  stop: AbortController;
  done: Promise<void>;
  listening: Promise<string>;
} {
  const stop = new AbortController();
  const done = manager.start(stop.signal);
  const listening = (async () => {
    while (!manager.addresses.probes) await new Promise((resolve) => setTimeout(resolve, 5));
    return manager.addresses.probes.url;
  })();
  return { stop, done, listening };
}

/** untilAborted is a runnable body: it works until its signal aborts, then takes `drainMs`. */
function runnable(
  log: string[],
  name: string,
  drainMs = 0,
  extra: Partial<Runnable> = {},
): Runnable {
  return {
    ...extra,
    async start(signal) {
      log.push(`start ${name}`);
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      await new Promise((resolve) => setTimeout(resolve, drainMs));
      log.push(`stopped ${name}`);
    },
  };
}

const LOOPBACK = { port: 0, host: '127.0.0.1' };

/** leadingManager is a Manager without servers that leads on `leases` (lease 600 ms, renew deadline 400 ms). */
function leadingManager(leases: LeaseServer): Manager {
  return new Manager({
    probes: false,
    metricsServer: false,
    gracefulShutdownTimeoutMs: 30_000,
    leaderElection: {
      leases,
      name: 'demo',
      identity: 'me',
      leaseDurationMs: 600,
      renewDeadlineMs: 400,
      retryPeriodMs: 50,
    },
  });
}

describe('Manager', () => {
  it('serves the probes and /metrics on ephemeral ports, reports both addresses, and logs a failing reason it withholds', async () => {
    const reported: string[] = [];
    const logged: string[] = [];
    let ready = false;
    const manager = new Manager({
      probes: LOOPBACK,
      metricsServer: { port: 0 },
      metrics: new PrometheusMetrics({ processMetrics: false }),
      logger: {
        ...SILENT_LOGGER,
        info: (message, fields) => logged.push(`${message} ${JSON.stringify(fields)}`),
      },
      onListening: (address) => reported.push(`${address.serves} ${address.url}`),
    }).addReadyCheck('warm', () => {
      if (!ready) throw new Error('still warming up as system:serviceaccount:team:robot');
    });
    const { stop, done, listening } = startedManager(manager);
    const url = await listening;
    const metricsUrl = manager.addresses.metrics!.url;
    expect(reported).toEqual([`probes ${url}`, `metrics ${metricsUrl}`]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    expect(await get(`${url}/healthz`)).toMatchObject({ status: 200, body: 'ok' });
    const notReady = await get(`${url}/readyz`);
    expect(notReady.status).toBe(500);
    expect(notReady.body).toContain('[+]shutdown ok');
    expect(notReady.body).toContain('[+]informers ok');
    expect(notReady.body).toContain('[-]warm failed: reason withheld');
    expect(notReady.body).not.toContain('serviceaccount');
    await get(`${url}/readyz`);
    // Logged once per change, not at every probe.
    expect(logged.filter((line) => line.startsWith('health check'))).toEqual([
      'health check failed {"endpoint":"readyz","check":"warm","reason":"still warming up as system:serviceaccount:team:robot"}',
    ]);
    ready = true;
    expect(await get(`${url}/readyz`)).toMatchObject({ status: 200, body: 'ok' });
    expect((await get(`${url}/readyz?verbose`)).body).toContain('[+]warm ok');
    const scraped = await get(`${metricsUrl}/metrics`);
    expect(scraped.status).toBe(200);
    expect(scraped.body).toContain('# TYPE informer_synced gauge');
    expect((await get(`${url}/nothing`)).status).toBe(404);

    stop.abort();
    await done;
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    await expect(fetch(`${metricsUrl}/metrics`)).rejects.toThrow();
  });

  it('serves no /metrics without a sink that renders, and logs why once it listens', async () => {
    const logged: string[] = [];
    const manager = new Manager({
      probes: LOOPBACK,
      logger: { ...SILENT_LOGGER, info: (message) => logged.push(message) },
    });
    const { stop, done, listening } = startedManager(manager);
    await listening;
    expect(Object.keys(manager.addresses)).toEqual(['probes']);
    expect(logged.filter((line) => line.startsWith('not serving /metrics'))).toHaveLength(1);
    stop.abort();
    await done;
  });

  it('closes a connection that sends its request headers too slowly (slowloris), and keeps answering probes', async () => {
    const manager = new Manager({ probes: LOOPBACK, metricsServer: false });
    const { stop, done, listening } = startedManager(manager);
    const url = new URL(await listening);
    const slow = connect(Number(url.port), url.hostname);
    slow.on('error', () => {}); // a write after the server closed it
    const closed = new Promise<void>((resolve) => slow.once('close', () => resolve()));
    slow.write('GET /readyz HTTP/1.1\r\nHost: manager\r\n');
    const drip = setInterval(() => slow.write('X-Drip: 1\r\n'), 1_000);
    try {
      expect(await get(`${url.origin}/healthz`)).toMatchObject({ status: 200, body: 'ok' });
      await closed; // the headers timeout (10 s), checked every second
      expect(slow.destroyed).toBe(true);
    } finally {
      clearInterval(drip);
      slow.destroy();
      stop.abort();
      await done;
    }
  }, 30_000);

  it('runs one check at /readyz/<name>, /healthz/<name> and /livez/<name>, 404 for an unknown name', async () => {
    let warm = false;
    let alive = true;
    const manager = new Manager({ probes: LOOPBACK, metricsServer: false })
      .addReadyCheck('warm', () => {
        if (!warm) throw new Error('still warming up');
      })
      .addReadyCheck('cache/primary', () => {})
      .addHealthCheck('heart', () => {
        if (!alive) throw new Error('no beat');
      });
    const { stop, done, listening } = startedManager(manager);
    const url = await listening;
    expect(await get(`${url}/readyz/warm`)).toMatchObject({
      status: 500,
      body: 'internal server error: reason withheld\n',
    });
    expect(await get(`${url}/readyz/informers`)).toMatchObject({ status: 200, body: 'ok' });
    expect(await get(`${url}/readyz/cache%2Fprimary`)).toMatchObject({ status: 200, body: 'ok' });
    warm = true;
    expect(await get(`${url}/readyz/warm`)).toMatchObject({ status: 200, body: 'ok' });
    // A check of one endpoint is not served by another.
    expect((await get(`${url}/healthz/warm`)).status).toBe(404);
    expect((await get(`${url}/readyz/nothing`)).status).toBe(404);
    expect((await get(`${url}/readyz/warm/more`)).status).toBe(404);
    expect((await get(`${url}/readyz/%zz`)).status).toBe(404);
    alive = false;
    for (const path of ['healthz', 'livez']) {
      expect(await get(`${url}/${path}/heart`)).toMatchObject({
        status: 500,
        body: 'internal server error: reason withheld\n',
      });
      expect(await get(`${url}/${path}/ping`)).toMatchObject({ status: 200, body: 'ok' });
    }
    const head = await fetch(`${url}/readyz/warm`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    stop.abort();
    await done;
  });

  it('skips the checks named by ?exclude= (repeatable) and warns about names that match none', async () => {
    const manager = new Manager({ probes: LOOPBACK, metricsServer: false })
      .addReadyCheck('warm', () => {
        throw new Error('still warming up');
      })
      .addReadyCheck('remote', () => {
        throw new Error('unreachable');
      });
    const { stop, done, listening } = startedManager(manager);
    const url = await listening;
    const one = await get(`${url}/readyz?exclude=warm`);
    expect(one.status).toBe(500);
    expect(one.body).toBe(
      [
        '[+]shutdown ok',
        '[+]informers ok',
        '[+]warm excluded: ok',
        '[-]remote failed: reason withheld',
        'readyz check failed',
        '',
      ].join('\n'),
    );
    expect(await get(`${url}/readyz?exclude=warm&exclude=remote`)).toMatchObject({
      status: 200,
      body: 'ok',
    });
    const verbose = await get(`${url}/readyz?exclude=warm&exclude=remote&exclude=typo&verbose`);
    expect(verbose.status).toBe(200);
    expect(verbose.body).toBe(
      [
        '[+]shutdown ok',
        '[+]informers ok',
        '[+]warm excluded: ok',
        '[+]remote excluded: ok',
        'warn: some health checks cannot be excluded: no matches for "typo"',
        'readyz check passed',
        '',
      ].join('\n'),
    );
    expect((await get(`${url}/livez?verbose`)).body).toBe('[+]ping ok\nlivez check passed\n');
    stop.abort();
    await done;
  });

  it('serves the scrape of a sink that can render', async () => {
    const metrics: ScrapableMetricsSink = {
      ...NOOP_METRICS,
      scrape: () =>
        Promise.resolve({ contentType: 'text/plain; version=0.0.4', body: 'workqueue_depth 3\n' }),
    };
    const manager = new Manager({ probes: LOOPBACK, metricsServer: { port: 0 }, metrics });
    const { stop, done, listening } = startedManager(manager);
    const probes = await listening;
    const scrape = manager.addresses.metrics!;
    // Metrics are served on loopback only, by default, and apart from the probes.
    expect(scrape.host).toBe('127.0.0.1');
    expect(scrape.port).not.toBe(manager.addresses.probes!.port);
    expect(await get(`${scrape.url}/metrics`)).toEqual({
      status: 200,
      body: 'workqueue_depth 3\n',
      type: 'text/plain; version=0.0.4',
    });
    expect((await get(`${probes}/metrics`)).status).toBe(404);
    expect((await get(`${scrape.url}/readyz`)).status).toBe(404);
    stop.abort();
    await done;
  });

  it('drains the runnables, then closes the closeables in reverse order, and fails readiness meanwhile', async () => {
    const log: string[] = [];
    let readyzWhileDraining: number | undefined;
    const manager = new Manager({ probes: LOOPBACK, metricsServer: false });
    manager
      .add(runnable(log, 'a', 200))
      .add(runnable(log, 'b', 50, { needLeaderElection: false }))
      .add({
        async start(signal) {
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          readyzWhileDraining = (await fetch(`${manager.addresses.probes!.url}/readyz`)).status;
        },
      })
      .closeOnShutdown({ close: () => void log.push('close first') })
      .closeOnShutdown({ close: () => void log.push('close second') });
    const { stop, done, listening } = startedManager(manager);
    await listening;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(log).toEqual(['start a', 'start b']);
    expect(manager.isLeader).toBe(true);
    stop.abort();
    await done;
    expect(readyzWhileDraining).toBe(500);
    expect(log.slice(2)).toEqual(['stopped b', 'stopped a', 'close second', 'close first']);
  });

  it('stops everything and rejects with the error of a runnable that failed', async () => {
    const log: string[] = [];
    const manager = new Manager({ probes: false, metricsServer: false })
      .add(runnable(log, 'steady'))
      .add({ start: () => Promise.reject(new Error('boom')) });
    await expect(manager.start(new AbortController().signal)).rejects.toThrow('boom');
    expect(log).toEqual(['start steady', 'stopped steady']);
  });

  it('rejects with ERR_RUNTIME_SHUTDOWN_TIMEOUT when a runnable outlives the grace period', async () => {
    const manager = new Manager({
      probes: false,
      metricsServer: false,
      gracefulShutdownTimeoutMs: 50,
    });
    let release: () => void = () => {};
    manager.add({ start: () => new Promise<void>((resolve) => (release = resolve)) });
    const stop = new AbortController();
    const done = manager.start(stop.signal);
    stop.abort();
    const error = await done.catch((caught: unknown) => caught);
    release();
    expect(error).toBeInstanceOf(RuntimeError);
    expect((error as RuntimeError).code).toBe('ERR_RUNTIME_SHUTDOWN_TIMEOUT');
  });

  it('rejects with ERR_RUNTIME_LISTEN when the port is taken, and closes what it was given', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    let closed = false;
    try {
      const manager = new Manager({ probes: { port, host: '127.0.0.1' } }).closeOnShutdown({
        close: () => void (closed = true),
      });
      const error = await manager
        .start(new AbortController().signal)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RuntimeError);
      expect((error as RuntimeError).code).toBe('ERR_RUNTIME_LISTEN');
      expect((error as Error).message).toContain(`127.0.0.1:${port}`);
      expect(closed).toBe(true);
    } finally {
      blocker.close();
    }
  });

  it('refuses what cannot work: a bad port, a second start, a late add, a duplicate check', async () => {
    expect(() => new Manager({ probes: { port: 70_000 } })).toThrow(
      /probes.port 70000 is not a port/,
    );
    expect(
      () => new Manager({ metricsServer: { port: -1 }, metrics: new PrometheusMetrics() }),
    ).toThrow(/not a port/);

    const manager = new Manager({ probes: false, metricsServer: false }).addHealthCheck(
      'db',
      () => {},
    );
    expect(() => manager.addHealthCheck('db', () => {})).toThrow(/already added/);
    const stop = new AbortController();
    const done = manager.start(stop.signal);
    expect(() => manager.add({ start: () => {} })).toThrow(/before the manager starts/);
    await expect(manager.start(stop.signal)).rejects.toThrow(/already started/);
    stop.abort();
    await done;
  });

  it('caps the connections of one peer, so one client holding them open leaves the probes answered', async () => {
    const manager = new Manager({ probes: LOOPBACK, metricsServer: false });
    const { stop, done, listening } = startedManager(manager);
    const url = new URL(await listening);
    const open = async (localAddress: string) => {
      const socket = connect({ port: Number(url.port), host: url.hostname, localAddress });
      socket.on('error', () => {});
      await new Promise((resolve) => socket.once('connect', resolve));
      return socket;
    };
    const held = await Promise.all(Array.from({ length: 16 }, () => open('127.0.0.2')));
    try {
      const extra = await open('127.0.0.2');
      await new Promise((resolve) => extra.once('close', resolve));
      expect(held.every((socket) => !socket.destroyed)).toBe(true);
      // Another peer (the kubelet) is still answered.
      expect(await get(`${url.origin}/healthz`)).toMatchObject({ status: 200, body: 'ok' });
    } finally {
      for (const socket of held) socket.destroy();
      stop.abort();
      await done;
    }
  });

  it('on an involuntary loss of leadership stops reconciling at once, aborts running reconciles and fails without draining', async () => {
    const leases = new LeaseServer();
    const log: string[] = [];
    const manager = leadingManager(leases);
    let slowAborted: Promise<unknown> | undefined;
    const { controller } = controllerOver(
      ['a', 'b', 'slow'],
      'busy',
      (_object, { request, signal }) => {
        if (!manager.isLeader) log.push(`started after the loss: ${request.name}`);
        if (request.name === 'slow') {
          slowAborted ??= new Promise((resolve) => signal.addEventListener('abort', resolve));
          // Ignores its signal for a while: the Manager must not wait for it.
          return new Promise<void>((resolve) =>
            setTimeout(() => {
              log.push('slow ended');
              resolve();
            }, 3000),
          );
        }
        return { requeueAfterMs: 5 };
      },
    );
    manager.add(controller);
    const stop = new AbortController();
    const done = manager.start(stop.signal);
    while (!manager.isLeader) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 100));
    leases.takeOver('other', 60);
    const failure = await done.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(RuntimeError.isInstance(failure) && failure.code).toBe('ERR_RUNTIME_LEADERSHIP_LOST');
    expect(slowAborted).toBeDefined();
    await slowAborted;
    // Rejected before the reconcile that ignored its signal ended: nothing drained.
    expect(log).toEqual([]);
    expect(controller.queue.shuttingDown).toBe(true);
    expect(leases.lease?.spec?.holderIdentity).toBe('other');
  });

  it('stops draining at once when leadership is lost after SIGTERM, and does not release the Lease', async () => {
    const leases = new LeaseServer();
    const log: string[] = [];
    const manager = leadingManager(leases);
    let slowStarted: () => void = () => {};
    const started = new Promise<void>((resolve) => (slowStarted = resolve));
    const { controller, source } = controllerOver(
      ['slow'],
      'draining',
      async (_object, { request }) => {
        log.push(`start ${request.name}${manager.isLeader ? '' : ' after the loss'}`);
        if (request.name === 'slow') {
          slowStarted();
          // Ignores its signal: a drain would wait for it, and for the keys queued behind it.
          await new Promise((resolve) => setTimeout(resolve, 3000));
          log.push('slow ended');
        }
      },
    );
    manager.add(controller);
    const stop = new AbortController();
    const done = manager.start(stop.signal);
    await started;
    source.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'queued' } });
    stop.abort(); // a graceful stop: the drain begins, and would run 'queued' after 'slow'
    leases.takeOver('other', 60); // then another replica takes the Lease
    const failure = await done.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(RuntimeError.isInstance(failure) && failure.code).toBe('ERR_RUNTIME_LEADERSHIP_LOST');
    expect(log).toEqual(['start slow']);
    expect(leases.lease?.spec?.holderIdentity).toBe('other');
  });
});

describe('Manager: an option passed as undefined means unset', () => {
  /** recordingLogger keeps every line as `level message`. */
  function recordingLogger(): { logger: Logger; lines: string[] } {
    const lines: string[] = [];
    const line = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
    const logger = {
      debug: line('debug'),
      info: line('info'),
      warn: line('warn'),
      error: line('error'),
    };
    return { logger, lines };
  }

  const quiet = { probes: false, metricsServer: false } as const;

  it('informerDefaults with logger: undefined keep the Manager logger for its informers', async () => {
    const { logger, lines } = recordingLogger();
    const manager = new Manager({
      ...quiet,
      logger,
      informerDefaults: { logger: undefined, clock: new FakeClock(), random: () => 0 },
    });
    const source = new MemorySource();
    source.failNext('watch', statusError(403, 'Forbidden'));
    source.failNext('list', statusError(403, 'Forbidden'));
    const stop = new AbortController();
    const informer = manager.informerFor(source, { description: 'refused' });
    informer.start(stop.signal);
    while (informer.health().failures === 0) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    stop.abort();
    await manager.informers.stop();
    expect(lines).toContain('warn informer failure');
  });

  it('eventRecorder({ logger: undefined }) logs to the Manager logger', async () => {
    const { logger, lines } = recordingLogger();
    const clientset = createClientset(testResolvedConfig('http://127.0.0.1:1'));
    const manager = new Manager({ ...quiet, logger, clientset });
    const recorder = manager.eventRecorder({ reportingController: 'widgets', logger: undefined });
    recorder.normal({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }, 'Synced', 'note');
    await recorder.close();
    await clientset.close();
    expect(lines).toEqual(['warn event without a kind, name or reason; dropped']);
  });

  it("a controller's withOptions({ logger: undefined }) keeps the Manager logger", async () => {
    const { logger, lines } = recordingLogger();
    const manager = new Manager({ ...quiet, logger });
    const controller = manager
      .controller('widgets')
      .for(new MemorySource())
      .withOptions({ logger: undefined, maxConcurrentReconciles: 2 })
      .complete(() => {});
    const stop = new AbortController();
    const done = controller.start(stop.signal);
    // It logs that it started as soon as its informer has synced.
    while (!controller.informer.hasSynced) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 5));
    stop.abort();
    await done;
    expect(lines).toContain('info controller started');
  });

  it('Manager.create paces its clientset at 20/30 when clientsetOptions say throttle: undefined', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'k-manager-create-'));
    const kubeconfig = join(directory, 'config');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{ name: c, cluster: { server: "http://127.0.0.1:1" } }]',
        'users: [{ name: u, user: {} }]',
        'contexts: [{ name: x, context: { cluster: c, user: u } }]',
        'current-context: x',
      ].join('\n'),
    );
    const paces: number[][] = [];
    for (const throttle of [undefined, { qps: 1, burst: 2 }]) {
      const manager = await Manager.create({
        ...quiet,
        logger: SILENT_LOGGER,
        metrics: NOOP_METRICS,
        clientsetOptions: { kubeconfig, throttle },
      });
      const bucket = manager.clientset.rest.throttle as TokenBucket;
      paces.push([bucket.qps, bucket.burst]);
      await manager.clientset.close();
    }
    expect(paces).toEqual([
      [20, 30],
      [1, 2],
    ]);
  });
});

/** controllerOver is a controller over an in-memory source holding cluster-scoped objects `names`. */
function controllerOver(
  names: readonly string[],
  name: string,
  reconcile: Reconciler<KubernetesObject, MemorySource>,
): { controller: Controller<KubernetesObject, MemorySource>; source: MemorySource } {
  const source = new MemorySource();
  for (const each of names) {
    source.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: each } });
  }
  const controller = new ControllerBuilder(name)
    .for(source)
    .withOptions({ logger: SILENT_LOGGER })
    .complete(reconcile);
  return { controller, source };
}
