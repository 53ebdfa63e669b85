import { MODULE_KINDS, runNodeProgram, startNodeProgram, type ModuleKind } from '@k/test-utils';
import type { RunningNodeProgram } from '@k/test-utils';
import { environment, useTestNamespace } from '@k/envtest/vitest';
import { afterEach, describe, expect, it } from 'vitest';
import { retryOnConflict } from '@k/rest';
import { clientsetFor, eventually, jsonLogLines, UNREACHABLE_KUBECONFIG } from './helpers.js';

// An operator's main as a user writes it, run by plain `node` on the built packages: a Manager
// with leader election, a controller, /healthz and /readyz and /metrics on ephemeral ports, and
// `run()` handling the signals. Two replicas: only the leader reconciles, the standby stays
// ready; a signal drains, releases the Lease (the standby leads at once) and exits 0.
const PROGRAM = `// With --expose-gc: collect garbage before any timeout is due (Node 20 lost AbortSignal.timeout then).
if (globalThis.gc) setInterval(() => globalThis.gc(), 200).unref();
const identity = process.env.IDENTITY;
const durations = process.env.LEASE_MS
  ? { leaseDurationMs: Number(process.env.LEASE_MS), renewDeadlineMs: Number(process.env.RENEW_MS), retryPeriodMs: Number(process.env.RETRY_MS) }
  : {};
// The Manager makes its clientset (and /metrics with prom-client) and closes it at the end.
const manager = await Manager.create({
  clientsetOptions: { kubeconfig: process.env.KUBECONFIG_PATH, context: process.env.CONTEXT, throttle: 'off' },
  probes: { port: 0, host: '127.0.0.1' },
  metricsServer: { port: 0 },
  onListening: (address) => console.log('LISTENING ' + address.serves + ' ' + address.url),
  ...(process.env.LEADER_ELECTION === 'on'
    ? {
        leaderElection: {
          namespace: process.env.NAMESPACE,
          name: 'manager-e2e',
          identity,
          onNewLeader: (leader) => console.log('LEADER ' + leader),
          ...durations,
        },
      }
    : {}),
});
const cs = manager.clientset;
manager
  .controller('manager-e2e')
  .for(cs.coreV1.configMaps(process.env.NAMESPACE), { labelSelector: 'test=manager' })
  .withOptions({ cacheSyncTimeoutMs: 6000 })
  .complete(async (_configMap, { request }) => {
    console.log('RECONCILE ' + identity + ' ' + request.name + (manager.isLeader ? '' : ' WHILE NOT LEADING'));
    await new Promise((resolve) => setTimeout(resolve, Number(process.env.RECONCILE_MS ?? 1000)));
    if (process.env.WRITE_AFTER === 'on') {
      // A write after the wait, as a reconcile that ignores its signal would make.
      await cs.coreV1.configMaps(process.env.NAMESPACE).create({ metadata: { name: 'after-' + request.name } }).then(
        () => console.log('WROTE ' + identity),
        (error) => console.log('WRITE REFUSED ' + identity + ' ' + error.code),
      );
    }
    console.log('RECONCILED ' + identity + ' ' + request.name);
  });
process.once('exit', (code) => console.log('EXIT ' + code));
try {
  await manager.run();
} catch (error) {
  console.log('RUN REJECTED ' + Date.now());
  throw error;
}
console.log('STOPPED ' + identity);`;

const IMPORTS = { '@k/runtime': ['Manager'] };

const namespace = useTestNamespace({ prefix: 'runtime-manager' });
const running: RunningNodeProgram[] = [];

afterEach(() => {
  for (const program of running.splice(0)) program.child.kill('SIGKILL');
});

async function replica(
  identity: string,
  kind: ModuleKind,
  env: Record<string, string> = {},
): Promise<{ program: RunningNodeProgram; url: string; metricsUrl: string }> {
  const program = await startNodeProgram({ imports: IMPORTS, main: PROGRAM }, kind, {
    env: {
      IDENTITY: identity,
      KUBECONFIG_PATH: environment().kubeconfigPath,
      CONTEXT: 'admin',
      NAMESPACE: namespace.name,
      LEADER_ELECTION: 'on',
      ...env,
    },
    timeoutMs: 90_000,
  });
  running.push(program);
  const [, url] = await program.waitForStdout(/LISTENING probes (\S+)/, 20_000);
  const [, metricsUrl] = await program.waitForStdout(/LISTENING metrics (\S+)/, 20_000);
  return { program, url: url!, metricsUrl: metricsUrl! };
}

async function probe(url: string): Promise<{ status: number; body: string }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.text() };
}

describe.each(MODULE_KINDS)('a Manager program (%s)', (kind: ModuleKind) => {
  // ESM stops on SIGTERM (what Kubernetes sends), CommonJS on SIGINT (Ctrl-C): both are graceful.
  const stopSignal = kind === 'esm' ? 'SIGTERM' : 'SIGINT';

  it(`leads and reconciles while the standby stays ready; ${stopSignal} drains, releases the Lease and exits 0`, async () => {
    const cs = await clientsetFor();
    const configMaps = cs.coreV1.configMaps(namespace.name);
    const labels = { test: 'manager' };
    try {
      const a = await replica('a', kind);
      await a.program.waitForStdout(/LEADER a/, 20_000);
      const b = await replica('b', kind);
      await b.program.waitForStdout(/LEADER a/, 20_000);

      // Both serve probes; both caches sync, so both are ready, but only the leader reconciles.
      for (const { url, metricsUrl } of [a, b]) {
        await eventually(async () =>
          expect(await probe(`${url}/readyz`)).toEqual({ status: 200, body: 'ok' }),
        );
        expect(await probe(`${url}/healthz?verbose`)).toMatchObject({ status: 200 });
        expect((await probe(`${url}/healthz?verbose`)).body).toContain('[+]leaderElection ok');
        expect((await probe(`${metricsUrl}/metrics`)).status).toBe(200);
      }
      await configMaps.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'first', labels },
      });
      await a.program.waitForStdout(/RECONCILED a first/, 20_000);
      expect(b.program.stdout()).not.toMatch(/RECONCILE/);

      // A reconcile is running when the signal arrives: it finishes before the Lease is released.
      await configMaps.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'second', labels },
      });
      await a.program.waitForStdout(/RECONCILE a second/, 20_000);
      a.program.child.kill(stopSignal);
      const resultA = await a.program.exited;
      expect(resultA).toMatchObject({ exitCode: 0, signal: null, timedOut: false });
      // The default logger: JSON lines on stderr, none an error.
      expect(jsonLogLines(resultA.stderr).map((line) => line.level)).not.toContain('error');
      expect(jsonLogLines(resultA.stderr).map((line) => line.level)).toContain('info');
      expect(resultA.stdout).toMatch(/RECONCILED a second\nSTOPPED a\nEXIT 0\n$/);

      // Released at once: b leads well before the 15 s lease would have expired, and reconciles
      // from the cache it kept warm while standing by.
      const released = Date.now();
      await b.program.waitForStdout(/LEADER b/, 10_000);
      expect(Date.now() - released).toBeLessThan(8_000);
      await b.program.waitForStdout(/RECONCILED b first/, 20_000);
      await b.program.waitForStdout(/RECONCILED b second/, 20_000);

      b.program.child.kill(stopSignal);
      const resultB = await b.program.exited;
      expect(resultB).toMatchObject({ exitCode: 0, signal: null, timedOut: false });
      const lease = await cs.coordinationV1.leases(namespace.name).get('manager-e2e');
      expect(lease.spec?.holderIdentity ?? '').toBe('');
    } finally {
      await cs.close();
    }
  });

  it('stops reconciling at once when its Lease is taken, and exits 1 without draining', async () => {
    const cs = await clientsetFor();
    const leases = cs.coordinationV1.leases(namespace.name);
    try {
      await cs.coreV1.configMaps(namespace.name).create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'busy', labels: { test: 'manager' } },
      });
      // lease 6 s, renew deadline 4 s, retry 0.5 s; a reconcile of 5 s that ignores its signal,
      // then writes.
      const { program } = await replica('held', kind, {
        LEASE_MS: '6000',
        RENEW_MS: '4000',
        RETRY_MS: '500',
        RECONCILE_MS: '5000',
        WRITE_AFTER: 'on',
      });
      await program.waitForStdout(/RECONCILE held busy/, 20_000);
      // Another replica (with other settings) takes the Lease: the renewals of `held` now fail.
      // (Read and written again while `held` renews it every 0.5 s.)
      await retryOnConflict(async () => {
        const lease = await leases.get('manager-e2e');
        await leases.update({
          ...lease,
          spec: { ...lease.spec, holderIdentity: 'thief', leaseDurationSeconds: 60 },
        });
      });
      const takenAt = Date.now();
      const result = await program.exited;
      expect(result).toMatchObject({ exitCode: 1, timedOut: false });
      expect(result.stderr).toMatch(/ERR_RUNTIME_LEADERSHIP_LOST/);
      expect(result.stdout).toMatch(/EXIT 1\n$/);
      // It sees the Lease taken at its next renewal (0.5 s) and fails without waiting for the
      // running reconcile, which a drain would have let finish: run() rejects first.
      const rejectedAt = Number(/RUN REJECTED (\d+)/.exec(result.stdout)?.[1]);
      expect(rejectedAt - takenAt).toBeLessThan(3_000);
      // An ES module's rejected top-level await ends the process there; a CommonJS main waits
      // for the reconcile that ignored its signal, whose write is then refused: the clients are
      // closed.
      if (kind === 'cjs') {
        expect(result.stdout).toMatch(/RUN REJECTED \d+\n(.*\n)*WRITE REFUSED held/);
      } else {
        expect(result.stdout).not.toMatch(/RECONCILED held busy/);
      }
      expect(result.stdout).not.toMatch(/WROTE held|WHILE NOT LEADING/);
      expect((await leases.get('manager-e2e')).spec?.holderIdentity).toBe('thief');
      await expect(cs.coreV1.configMaps(namespace.name).get('after-busy')).rejects.toThrow(
        /not found/,
      );
    } finally {
      await cs.close();
    }
  });

  it('serves a failing /readyz while the server cannot be reached, then exits 1 with a typed error', async () => {
    const program = await startNodeProgram(
      { imports: IMPORTS, main: PROGRAM, files: { kubeconfig: UNREACHABLE_KUBECONFIG } },
      kind,
      {
        env: {
          IDENTITY: 'lonely',
          KUBECONFIG_PATH: 'kubeconfig',
          CONTEXT: 'nowhere',
          NAMESPACE: 'default',
        },
        timeoutMs: 30_000,
        nodeArgs: ['--expose-gc'],
      },
    );
    running.push(program);
    const [, url] = await program.waitForStdout(/LISTENING probes (\S+)/, 20_000);
    const readyz = await probe(`${url}/readyz`);
    expect(readyz.status).toBe(500);
    expect(readyz.body).toContain('[-]informers failed: reason withheld');
    expect(readyz.body).not.toContain('not-a-secret');
    expect((await probe(`${url}/healthz`)).status).toBe(200);

    const result = await program.exited;
    expect(result.timedOut).toBe(false);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/ERR_RUNTIME_NOT_SYNCED/);
    expect(result.stderr).not.toMatch(/not-a-secret/);
    expect(result.stdout).toMatch(/EXIT 1\n$/);
  });
});

describe('a Manager program told to stop twice', () => {
  it('dies at the second signal when the first one is still draining', async () => {
    const program = await startNodeProgram(
      {
        imports: { '@k/runtime': ['Manager'] },
        main: `const manager = new Manager({ probes: { port: 0, host: '127.0.0.1' }, metricsServer: false, onListening: () => console.log('LISTENING') });
manager.add({ start: (signal) => new Promise((resolve) => signal.addEventListener('abort', () => { console.log('DRAINING'); setTimeout(resolve, 60000); })) });
await manager.run();`,
      },
      'esm',
      { timeoutMs: 30_000 },
    );
    running.push(program);
    await program.waitForStdout(/LISTENING/, 20_000);
    program.child.kill('SIGTERM');
    await program.waitForStdout(/DRAINING/, 10_000);
    program.child.kill('SIGTERM');
    const result = await program.exited;
    expect(result).toMatchObject({ signal: 'SIGTERM', timedOut: false });
  });
});

// A running Manager is pending work even with no server and nothing to run yet: it keeps `node`
// alive (an ES module's top-level await would otherwise end with exit code 13) until a signal.
describe('a Manager with nothing to run and no server', () => {
  it.each(MODULE_KINDS)('stays alive until SIGTERM, then exits 0 (%s)', async (kind) => {
    const started = Date.now();
    const result = await runNodeProgram(
      {
        imports: { '@k/runtime': ['Manager'] },
        main: `const manager = new Manager({ probes: false, metricsServer: false });
setTimeout(() => process.kill(process.pid, 'SIGTERM'), 1500).unref();
await manager.run();
console.log('STOPPED');`,
      },
      kind,
      { timeoutMs: 20_000 },
    );
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, stdout: 'STOPPED\n' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
  });
});
