import { inferClientset, type Clientset } from '@k/clientset';
import type { ConfigMap } from '@k/clientset/core/v1';
import { useEnvironment } from '@k/envtest/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAppsClient, type WebApp } from '../src/generated/web-app-v1beta1.js';
import { eventually, installCrd, startOperator, webApp, type RunningOperator } from './helpers.js';

// One operator for every namespace, as deployed: on a control plane of its own, so the WebApps
// of the other test files (and their operators) are not in its way. No nodes or controllers:
// the registry is the subject, not the rollouts.
// etcd and kube-apiserver alone, from the cache (never a shell's KUBEBUILDER_ASSETS).
const plane = useEnvironment({
  own: true,
  binaries: 'cache',
  nodes: 0,
  controllerManager: false,
  scheduler: false,
});
let cs: Clientset;

beforeAll(async () => {
  cs = await inferClientset({
    kubeconfig: plane.kubeconfigPath,
    context: 'admin',
    throttle: 'off',
  });
  await installCrd(cs);
  for (const name of ['ops', 'team-a', 'team-b']) {
    await cs.coreV1
      .namespaces()
      .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
});

// useEnvironment stops the plane after the file.
afterAll(async () => {
  await cs?.close();
});

function condition(webapp: WebApp, type: string) {
  return webapp.status?.conditions?.find((candidate) => candidate.type === type);
}

/** registryHolding is the registry ConfigMap (in `ops`) that holds `key` with `value`, if any. */
async function registryHolding(key: string, value: string): Promise<ConfigMap | undefined> {
  const list = await cs.coreV1.configMaps('ops').list();
  return list.items.find((configMap) => configMap.data?.[key] === value);
}

const entryOf = (namespace: string, name: string) =>
  [`${namespace}.${name}`, `http://${name}.${namespace}.svc:80`] as const;

describe('the WebApp registry', () => {
  it('holds each namespace apart: one that fills its share does not block another’s WebApps', async () => {
    const running: RunningOperator = await startOperator(
      'ops',
      ['--namespace=', '--operator-namespace=ops'],
      plane.kubeconfigPath,
    );
    try {
      const teamA = createWebAppsClient(cs.rest, 'team-a');
      const teamB = createWebAppsClient(cs.rest, 'team-b');
      await teamA.create(webApp('a-1'));
      await teamB.create(webApp('b-1'));
      const registryOfA = await eventually(async () => {
        const found = await registryHolding(...entryOf('team-a', 'a-1'));
        expect(found).toBeDefined();
        expect(await registryHolding(...entryOf('team-b', 'b-1'))).toBeDefined();
        return found!;
      });

      // team-a fills the ConfigMap its entries are in to the API server's limit (1 MiB of
      // values; no entry fits in the 8 bytes left): as its WebApps would, quicker.
      const registries = cs.coreV1.configMaps('ops');
      const registryName = registryOfA.metadata!.name!;
      await eventually(async () => {
        const current = await registries.get(registryName);
        const used = Object.values(current.data ?? {}).reduce(
          (total, value) => total + value.length,
          0,
        );
        const filler = 'x'.repeat(1024 * 1024 - used - 8);
        await registries.patch(registryName, 'merge', {
          metadata: { resourceVersion: current.metadata!.resourceVersion! },
          data: { filler },
        });
      });

      // team-b's new WebApp is recorded, and made, as if nothing happened.
      let since = Date.now();
      await teamB.create(webApp('b-2'));
      await eventually(async () => {
        expect(await registryHolding(...entryOf('team-b', 'b-2'))).toBeDefined();
        const b2 = await teamB.get('b-2');
        expect(b2.metadata?.finalizers).toEqual(['apps.k.example/registry-entry']);
        expect(condition(b2, 'Degraded')).toMatchObject({ status: 'False' });
        await cs.appsV1.deployments('team-b').get('b-2');
      }, 20_000);
      console.log(
        `team-b's WebApp recorded and made in ${Date.now() - since} ms beside a full team-a`,
      );

      // team-a's new one is not recorded and says why, once; the rest of it is made.
      await teamA.create(webApp('a-2'));
      await eventually(async () => {
        const a2 = await teamA.get('a-2');
        expect(condition(a2, 'Degraded')).toMatchObject({ status: 'True', reason: 'RegistryFull' });
        expect(condition(a2, 'Degraded')?.message).toMatch(/registry of namespace team-a is full/);
        await cs.appsV1.deployments('team-a').get('a-2');
      }, 20_000);
      expect(await registryHolding(...entryOf('team-a', 'a-2'))).toBeUndefined();
      const warnings = async () =>
        (await cs.eventsV1.events('team-a').list()).items.filter(
          (event) => event.regarding?.name === 'a-2' && event.reason === 'RegistryFull',
        );
      await eventually(async () => expect(await warnings()).toHaveLength(1));

      // Once team-a makes room, the waiting WebApp is recorded without anything else changing.
      await registries.patch(registryName, 'merge', { data: { filler: null } });
      since = Date.now();
      await eventually(async () => {
        expect(await registryHolding(...entryOf('team-a', 'a-2'))).toBeDefined();
        expect(condition(await teamA.get('a-2'), 'Degraded')).toMatchObject({ status: 'False' });
      }, 20_000);
      console.log(`team-a's waiting WebApp recorded ${Date.now() - since} ms after room was made`);
      expect((await warnings())[0]?.series?.count ?? 1).toBe(1);

      for (const [client, name] of [
        [teamA, 'a-1'],
        [teamA, 'a-2'],
        [teamB, 'b-1'],
        [teamB, 'b-2'],
      ] as const) {
        await client.delete(name);
      }
      await eventually(async () => {
        expect((await teamA.list()).items).toEqual([]);
        expect((await teamB.list()).items).toEqual([]);
      });
    } finally {
      await running.stop();
    }
  });
});
