import { randomUUID } from 'node:crypto';
import type { Clientset, UnstructuredObject } from '@k/clientset';
import type { ConfigMap } from '@k/clientset/core/v1';
import { useTestNamespace } from '@k/envtest/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControllerBuilder, type ReconcileContext } from '../src/index.js';
import { requestKey } from '../src/controller/request.js';
import { InformerFactory } from '../src/informer.js';
import { clientsetFor, eventually } from './helpers.js';

// A cluster-scoped kind owning namespaced children (a TeamNamespace owning the ConfigMaps of
// its team's namespace), on the real server: `owns()` must enqueue the owner under the key
// `for()` gives it, `alpha`, never `team-namespace/alpha`.
const namespace = useTestNamespace({ prefix: 'runtime-cluster-owner' });
let cs: Clientset;
let group: string;

beforeAll(async () => {
  cs = await clientsetFor();
  group = `g${randomUUID().slice(0, 8)}.k-runtime.test`; // CRDs are cluster-wide: a group of its own
  await cs.applyManifests(
    `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: teamnamespaces.${group} }
spec:
  group: ${group}
  scope: Cluster
  names: { plural: teamnamespaces, kind: TeamNamespace }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true }
`,
    { fieldManager: 'runtime-e2e' },
  );
});

afterAll(async () => {
  await cs?.apiextensionsV1
    .customResourceDefinitions()
    .delete(`teamnamespaces.${group}`)
    .catch(() => undefined);
  await cs?.close();
});

describe('owns() with a cluster-scoped owner (real server)', () => {
  it('enqueues the owner under one key, so its reconciles never overlap and find it in the cache', async () => {
    const teams = await cs.dynamic.forKind(`${group}/v1`, 'TeamNamespace');
    const configMaps = cs.coreV1.configMaps(namespace.name);
    const factory = new InformerFactory();
    const teamInformer = factory.informerFor(teams);
    const childInformer = factory.informerFor(configMaps, { labelSelector: { team: 'alpha' } });

    const keys: string[] = [];
    const childrenSeen: number[] = [];
    const missing: string[] = [];
    let running = 0;
    let overlaps = 0;
    const reconcile = async (
      team: UnstructuredObject,
      { request }: ReconcileContext<UnstructuredObject, unknown>,
    ): Promise<void> => {
      // A cluster-scoped owner's request has no namespace: its key is its name.
      const key = requestKey(request);
      keys.push(key);
      running += 1;
      if (running > 1) overlaps += 1;
      try {
        if (team.metadata?.name !== request.name || request.namespace !== '') missing.push(key);
        childrenSeen.push(childInformer.lister.list().length);
        // Slow enough that a second key for the same owner would run beside this one.
        await new Promise((resolve) => setTimeout(resolve, 100));
      } finally {
        running -= 1;
      }
    };
    const controller = new ControllerBuilder('teams')
      .for(teamInformer)
      .owns(childInformer)
      .withOptions({ maxConcurrentReconciles: 4 })
      .complete(reconcile);

    const team = await teams.create({
      apiVersion: `${group}/v1`,
      kind: 'TeamNamespace',
      metadata: { name: 'alpha' },
    });
    const child = (name: string): ConfigMap => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name,
        labels: { team: 'alpha' },
        ownerReferences: [
          {
            apiVersion: `${group}/v1`,
            kind: 'TeamNamespace',
            name: 'alpha',
            uid: team.metadata!.uid!,
            controller: true,
          },
        ],
      },
      data: { quota: '1' },
    });

    const stop = new AbortController();
    const started = controller.start(stop.signal);
    factory.start(stop.signal);
    try {
      await factory.waitForSync(AbortSignal.timeout(30_000));
      // The owner's own change and its children's changes arrive together.
      await Promise.all([
        teams.patch('alpha', 'merge', { spec: { members: 3 } }),
        configMaps.create(child('quota')),
        configMaps.create(child('limits')),
      ]);
      // Changes of one key while it is queued make one reconcile: wait for one that saw both.
      await eventually(() => expect(childrenSeen).toContain(2));
      // Drift of a child is repaired by reconciling the owner, found by its own key.
      const before = keys.length;
      await configMaps.patch('quota', 'merge', { data: { quota: '2' } });
      await eventually(() => expect(keys.length).toBeGreaterThan(before));
      expect(new Set(keys)).toEqual(new Set(['alpha']));
      expect(missing).toEqual([]);
      expect(overlaps).toBe(0);
    } finally {
      stop.abort();
      await started;
      await factory.stop();
      await teams.delete('alpha').catch(() => undefined);
    }
  });
});
