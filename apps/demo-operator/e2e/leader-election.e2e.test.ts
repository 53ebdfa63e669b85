import type { Clientset } from '@k/clientset';
import { environment, useTestNamespace } from '@k/envtest/vitest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createWebAppsClient } from '../src/generated/web-app-v1beta1.js';
import { LEASE_NAME } from '../src/names.js';
import { OPERATOR_BIN, startChild, type Child } from './child-process.js';
import { clientsetFor, eventually, installCrd, webApp } from './helpers.js';

const namespace = useTestNamespace({ prefix: 'demo-operator-le' });
const children: Child[] = [];
let cs: Clientset;

beforeAll(async () => {
  cs = await clientsetFor();
  await installCrd(cs);
});

afterEach(() => {
  for (const child of children.splice(0)) child.child.kill('SIGKILL');
});

afterAll(async () => {
  await cs?.close();
});

function replica(identity: string): Child {
  const child = startChild(OPERATOR_BIN, [
    `--kubeconfig=${environment().kubeconfigPath}`,
    '--context=admin',
    `--namespace=${namespace.name}`,
    `--operator-namespace=${namespace.name}`,
    `--identity=${identity}`,
    '--leader-elect-lease-duration=4s',
    '--leader-elect-renew-deadline=3s',
    '--leader-elect-retry-period=500ms',
    '--health-probe-bind-address=127.0.0.1:0',
    '--metrics-bind-address=127.0.0.1:0',
  ]);
  children.push(child);
  return child;
}

const WRITES = /^(create|update|patch|delete)$/;

/** writesBy lists, in the order the server received them, the writes of the operator replicas other than Lease renewals. */
async function writesBy(identities: readonly string[]): Promise<string[]> {
  const records = await environment().audit.records({
    namespace: namespace.name,
    verb: WRITES,
    userAgent: new RegExp(`^demo-operator/(${identities.join('|')})`),
  });
  return records
    .filter((record) => record.resource !== 'leases')
    .map((record) => record.userAgent.split(' ')[0]!.slice('demo-operator/'.length));
}

describe('two operator processes', () => {
  it('a leader whose Lease another holder takes stops and exits 1, saying why', async () => {
    const leader = replica('gamma');
    await leader.waitForOutput(/leading; starting controllers/);
    const webapps = createWebAppsClient(cs.rest, namespace.name);
    await webapps.create(webApp('busy'));
    await eventually(async () =>
      expect((await webapps.get('busy')).status?.observedGeneration).toBe(1),
    );
    // Another holder takes the Lease (as one would after it expired), for a long time.
    const leases = cs.coordinationV1.leases(namespace.name);
    const now = new Date()
      .toISOString()
      .replace(/\.(\d+)Z$/, (_, fraction: string) => `.${fraction.padEnd(6, '0')}Z`);
    await eventually(async () => {
      const lease = await leases.get(LEASE_NAME);
      await leases.update({
        ...lease,
        spec: {
          ...lease.spec,
          holderIdentity: 'usurper',
          leaseDurationSeconds: 300,
          acquireTime: now,
          renewTime: now,
          leaseTransitions: (lease.spec?.leaseTransitions ?? 0) + 1,
        },
      });
    }, 10_000);
    const takenAt = Date.now();
    const exit = await leader.exited;
    console.log(`the leader exited ${Date.now() - takenAt} ms after its Lease was taken`);
    expect(exit).toMatchObject({ code: 1, signal: null });
    const failed = exit.output.match(/^.*failed .*ERR_RUNTIME_LEADERSHIP_LOST.*$/m);
    expect(failed).not.toBeNull();
    console.log(failed![0]);
    expect((await leases.get(LEASE_NAME)).spec?.holderIdentity).toBe('usurper');
    // No operator is left to remove the finalizer: do it, so the namespace can go.
    await webapps.patch('busy', 'merge', { metadata: { finalizers: null } });
    await webapps.delete('busy');
  });

  it('only the leader reconciles; SIGKILL it and the other takes over and finishes the work; no WebApp is written by both', async () => {
    const first = replica('alpha');
    const second = replica('beta');
    const url = async (child: Child, serves: string) =>
      (await child.waitForOutput(new RegExp(`serving ${serves} url=(\\S+)`)))[1]!;
    const urls = [await url(first, 'probes'), await url(second, 'probes')];
    const metricsUrls = [await url(first, 'metrics'), await url(second, 'metrics')];
    const [leaderName] = (await Promise.race([
      first.waitForOutput(/leading; starting controllers/).then(() => ['alpha']),
      second.waitForOutput(/leading; starting controllers/).then(() => ['beta']),
    ])) as [string];
    const leader = leaderName === 'alpha' ? first : second;
    const standby = leader === first ? second : first;
    const standbyName = leaderName === 'alpha' ? 'beta' : 'alpha';
    expect(
      (await cs.coordinationV1.leases(namespace.name).get(LEASE_NAME)).spec?.holderIdentity,
    ).toBe(leaderName);
    // Both are alive and ready: the standby keeps a warm cache.
    for (const base of urls) {
      await eventually(async () => {
        expect((await fetch(`${base}/healthz`)).status).toBe(200);
        expect((await fetch(`${base}/readyz`)).status).toBe(200);
      });
    }

    const webapps = createWebAppsClient(cs.rest, namespace.name);
    for (const name of ['one', 'two', 'three']) await webapps.create(webApp(name));
    await eventually(async () => {
      for (const name of ['one', 'two', 'three']) {
        expect((await webapps.get(name)).status?.observedGeneration).toBe(1);
      }
    });
    // /metrics: controller-runtime's and client-go's names, and who leads.
    const scrape = async (child: Child) =>
      (await fetch(`${metricsUrls[child === first ? 0 : 1]}/metrics`)).text();
    const leaderMetrics = await scrape(leader);
    expect(leaderMetrics).toMatch(/^leader_election_master_status\{name="demo-operator"\} 1$/m);
    expect(leaderMetrics).toMatch(
      /^controller_runtime_reconcile_total\{controller="webapp",result="success"\} [1-9]/m,
    );
    expect(leaderMetrics).toMatch(
      /^rest_client_requests_total\{code="200",method="PATCH",host="127\.0\.0\.1:\d+"\} [1-9]/m,
    );
    expect(leaderMetrics).toMatch(
      /^workqueue_adds_total\{name="webapp",controller="webapp"\} [1-9]/m,
    );
    expect(await scrape(standby)).toMatch(
      /^leader_election_master_status\{name="demo-operator"\} 0$/m,
    );

    const before = await writesBy([leaderName, standbyName]);
    expect(before.length).toBeGreaterThan(0);
    expect(new Set(before)).toEqual(new Set([leaderName]));
    expect(standby.output()).not.toMatch(/reconciled/);

    leader.child.kill('SIGKILL');
    const killedAt = Date.now();
    for (const name of ['four', 'five']) await webapps.create(webApp(name));
    await standby.waitForOutput(/leading; starting controllers/, 20_000);
    await eventually(async () => {
      for (const name of ['four', 'five']) {
        await cs.appsV1.deployments(namespace.name).get(name);
        expect((await webapps.get(name)).status?.observedGeneration).toBe(1);
      }
    }, 30_000);
    // Within the lease duration (4 s) plus retry periods, with room for a loaded machine.
    expect(Date.now() - killedAt).toBeLessThan(15_000);
    expect(
      (await cs.coordinationV1.leases(namespace.name).get(LEASE_NAME)).spec?.holderIdentity,
    ).toBe(standbyName);
    const all = await writesBy([leaderName, standbyName]);
    const firstOfStandby = all.indexOf(standbyName);
    expect(firstOfStandby).toBeGreaterThan(0);
    // Nothing of the killed leader after the new one's first write: never two writers at once.
    expect(all.slice(firstOfStandby).every((writer) => writer === standbyName)).toBe(true);

    // The new leader also keeps the earlier WebApps in line (its cache has them).
    await cs.appsV1
      .deployments(namespace.name)
      .patch('one', 'merge', { spec: { replicas: 9 } }, { fieldManager: 'someone' });
    await eventually(async () =>
      expect((await cs.appsV1.deployments(namespace.name).get('one')).spec.replicas).toBe(2),
    );

    // Delete while it runs (finalizers), then SIGTERM: a clean exit that releases the Lease.
    for (const name of ['one', 'two', 'three', 'four', 'five']) await webapps.delete(name);
    await eventually(async () => expect((await webapps.list()).items).toHaveLength(0));
    standby.child.kill('SIGTERM');
    const exit = await standby.exited;
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.output).toMatch(/manager stopped/);
    expect(
      (await cs.coordinationV1.leases(namespace.name).get(LEASE_NAME)).spec?.holderIdentity ?? '',
    ).toBe('');
  });
});
