import type { Clientset } from '@k/clientset';
import type { AuditRecord } from '@k/envtest';
import { environment, useTestNamespace } from '@k/envtest/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAppsClient } from '../src/generated/web-app-v1beta1.js';
import { LEASE_NAME, registryName } from '../src/names.js';
import {
  clientsetFor,
  eventually,
  installCrd,
  permissionOf,
  startOperator,
  webApp,
} from './helpers.js';

const COUNT = 200;
const namespace = useTestNamespace({ prefix: 'demo-operator-scale' });
let cs: Clientset;

beforeAll(async () => {
  cs = await clientsetFor();
  await installCrd(cs);
});

afterAll(async () => {
  await cs?.close();
});

/** The operator's requests as the API server logged them (its user agent names its identity). */
function operatorRequests(identity: string): Promise<AuditRecord[]> {
  return environment().audit.records({
    userAgent: `demo-operator/${identity}`,
  });
}

const isWrite = (record: AuditRecord) => /^(create|update|patch|delete)$/.test(record.verb);

describe(`${COUNT} WebApps at once`, () => {
  it('are all reconciled with the writes each needs; then, with nothing changing, the operator sends nothing but Lease renewals', async () => {
    const identity = `e2e-${namespace.name}`;
    const running = await startOperator(namespace.name, [
      '--leader-elect=true',
      '--max-concurrent-reconciles=8',
    ]);
    try {
      const webapps = createWebAppsClient(cs.rest, namespace.name);
      const names = Array.from(
        { length: COUNT },
        (_, index) => `app-${String(index).padStart(3, '0')}`,
      );
      // No Pods (replicas 0), so the count is about the operator, not the scheduler and kwok.
      await Promise.all(names.map((name) => webapps.create(webApp(name, { replicas: 0 }))));
      // The operator in this process competes for the Lease like a deployed replica, and wins it.
      await eventually(() => expect(running.operator.isLeader).toBe(true), 30_000);
      expect(
        (await cs.coordinationV1.leases(namespace.name).get(LEASE_NAME)).spec?.holderIdentity,
      ).toBe(identity);
      expect(running.logs.join('')).toMatch(/leading; starting controllers/);
      await eventually(async () => {
        const list = await webapps.list();
        const done = list.items.filter(
          (item) =>
            item.status?.observedGeneration === 1 &&
            item.status.conditions?.some(
              (condition) => condition.type === 'Available' && condition.status === 'True',
            ),
        );
        expect(done.length).toBe(COUNT);
      }, 120_000);
      expect((await cs.appsV1.deployments(namespace.name).list()).items).toHaveLength(COUNT);
      expect((await cs.coreV1.services(namespace.name).list()).items).toHaveLength(COUNT);
      expect(
        Object.keys(
          (await cs.coreV1.configMaps(namespace.name).get(registryName(namespace.name))).data ?? {},
        ),
      ).toHaveLength(COUNT);

      // Let the last status writes settle, then watch for a while.
      let quietSince = Date.now();
      let seen = (await operatorRequests(identity)).length;
      while (Date.now() - quietSince < 3000) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        const now = (await operatorRequests(identity)).filter(
          (record) => record.resource !== 'leases',
        ).length;
        if (now !== seen) [seen, quietSince] = [now, Date.now()];
      }
      const before = await operatorRequests(identity);
      const writes = before.filter(isWrite).filter((record) => record.resource !== 'leases');
      const byKind = new Map<string, number>();
      for (const record of writes)
        byKind.set(permissionOf(record), (byKind.get(permissionOf(record)) ?? 0) + 1);
      console.log(`writes for ${COUNT} WebApps: ${JSON.stringify(Object.fromEntries(byKind))}`);
      // The necessary writes: one finalizer, one registry entry (the first creates the registry),
      // one Deployment, one Service (each a create: it fails if the name is taken), one Event
      // and two status writes each (the operator's own observation, then the Deployment
      // controller's result); a few repeats allowed.
      expect(byKind.get('patch webapps')).toBe(COUNT);
      expect(byKind.get('create configmaps')).toBe(1);
      expect(byKind.get('patch configmaps')).toBe(COUNT - 1);
      expect(byKind.get('create deployments')).toBe(COUNT);
      expect(byKind.get('patch deployments') ?? 0).toBeLessThanOrEqual(COUNT * 0.05);
      expect(byKind.get('create services')).toBe(COUNT);
      expect(byKind.get('patch services') ?? 0).toBeLessThanOrEqual(COUNT * 0.05);
      expect(byKind.get('create events')).toBe(COUNT);
      expect(byKind.get('patch webapps/status')).toBeGreaterThanOrEqual(COUNT);
      expect(byKind.get('patch webapps/status')).toBeLessThanOrEqual(COUNT * 2.05);

      const idleMs = 20_000;
      await new Promise((resolve) => setTimeout(resolve, idleMs));
      const after = await operatorRequests(identity);
      const known = new Set(before.map((record) => record.auditID));
      const idle = after.filter((record) => !known.has(record.auditID));
      expect(idle.filter((record) => record.resource !== 'leases').map(permissionOf)).toEqual([]);
      // Renewals every retry period (2 s): one update each, of the Lease as last seen (a read
      // only after a renewal failed).
      const renewals = idle.filter((record) => record.resource === 'leases');
      expect(renewals.filter((record) => record.verb === 'update').length).toBeGreaterThanOrEqual(
        idleMs / 2000 - 2,
      );
      expect(renewals.filter((record) => record.verb === 'get').length).toBeLessThanOrEqual(1);
    } finally {
      await running.stop();
    }
  }, 300_000);
});
