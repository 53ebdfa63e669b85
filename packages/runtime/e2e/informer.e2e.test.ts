import { isForbidden, type Clientset } from '@k/clientset';
import type { ConfigMap } from '@k/clientset/core/v1';
import { environment, useTestNamespace } from '@k/envtest/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DeletedFinalStateUnknown,
  Informer,
  InformerError,
  objectKey,
  type EventHandler,
} from '../src/informer.js';
import { CountingSource, clientsetFor, eventually, inParallel } from './helpers.js';

const namespace = useTestNamespace({ prefix: 'runtime-informer' });
let cs: Clientset;

beforeAll(async () => {
  cs = await clientsetFor();
});

afterAll(async () => {
  await cs?.close();
});

function configMap(name: string, data: Record<string, string> = {}): ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: TEST_LABELS }, data };
}

// The namespace also holds kube-root-ca.crt; the informers select only the test's own objects.
const TEST_LABELS = { test: 'informer' };

/** LastSeen records the last state each handler call delivered, by key. */
class LastSeen implements EventHandler<ConfigMap> {
  readonly objects = new Map<string, ConfigMap>();
  readonly deleted = new Set<string>();
  adds = 0;
  initialAdds = 0;
  tombstones = 0;

  onAdd(object: ConfigMap, isInInitialList: boolean): void {
    this.adds += 1;
    if (isInInitialList) this.initialAdds += 1;
    this.objects.set(objectKey(object), object);
    this.deleted.delete(objectKey(object));
  }

  onUpdate(_old: ConfigMap, object: ConfigMap): void {
    this.objects.set(objectKey(object), object);
  }

  onDelete(object: ConfigMap | DeletedFinalStateUnknown<ConfigMap>): void {
    if (object instanceof DeletedFinalStateUnknown) this.tombstones += 1;
    const key = object instanceof DeletedFinalStateUnknown ? object.key : objectKey(object);
    this.objects.delete(key);
    this.deleted.add(key);
  }
}

function summary(objects: Iterable<ConfigMap>): Record<string, string> {
  const byKey: Record<string, string> = {};
  for (const object of objects) {
    byKey[objectKey(object)] = `${object.metadata?.resourceVersion}:${JSON.stringify(object.data)}`;
  }
  return byKey;
}

async function expectCacheEqualsList(informer: Informer<ConfigMap>, seen: LastSeen): Promise<void> {
  await eventually(async () => {
    const fresh = await cs.coreV1.configMaps(namespace.name).list({ labelSelector: TEST_LABELS });
    const expected = summary(fresh.items);
    expect(summary(informer.lister.list())).toEqual(expected);
    // Every object's final state reached the handlers too.
    expect(summary(seen.objects.values())).toEqual(expected);
  });
}

describe.each([
  { mode: 'streaming list (WatchList)', watchList: true },
  { mode: 'LIST in pages', watchList: false },
])('an informer over 1,000 ConfigMaps, $mode', ({ watchList }) => {
  it('syncs, follows creates, updates and deletes, and equals a fresh LIST after 500 changes', async () => {
    const configMaps = cs.coreV1.configMaps(namespace.name);
    const names = Array.from({ length: 1000 }, (_, index) => `cm-${index}`);
    await inParallel(names, 16, (name) => configMaps.create(configMap(name, { v: '0' })));

    const source = new CountingSource(configMaps);
    const informer = new Informer<ConfigMap>(source, { watchList, labelSelector: TEST_LABELS });
    const seen = new LastSeen();
    informer.addEventHandler(seen);
    informer.start();
    try {
      await informer.waitForSync(AbortSignal.timeout(60_000));
      expect(informer.hasSynced).toBe(true);
      // A list at resourceVersion "0" comes from the watch cache, which may trail the last
      // writes by a moment; the watch catches up.
      expect(seen.initialAdds).toBe(informer.lister.size);
      await eventually(() => expect(informer.lister.size).toBe(1000));
      // managedFields are dropped by default.
      expect(
        informer.lister.get(`${namespace.name}/cm-7`)?.metadata?.managedFields,
      ).toBeUndefined();
      expect(informer.lister.list(namespace.name)).toHaveLength(1000);
      if (watchList) {
        expect(source.lists).toHaveLength(0);
        expect(source.watches[0]).toMatchObject({
          sendInitialEvents: true,
          resourceVersionMatch: 'NotOlderThan',
          allowWatchBookmarks: true,
        });
      } else {
        expect(source.lists.length).toBeGreaterThanOrEqual(1);
        expect(source.lists[0]).toMatchObject({ resourceVersion: '0', limit: 500 });
      }
      const watch = source.watches.at(-1)!;
      expect(watch.allowWatchBookmarks).toBe(true);
      // The default transform drops managedFields, so the watch skips them while decoding.
      expect(source.watches.every((options) => options?.omitManagedFields === true)).toBe(true);
      expect(watch.timeoutSeconds).toBeGreaterThanOrEqual(300);
      expect(watch.timeoutSeconds).toBeLessThan(600);

      // A burst of 500 changes: 200 updates, 150 deletes, 150 creates.
      const changes: (() => Promise<unknown>)[] = [
        ...names
          .slice(0, 200)
          .map((name) => () => configMaps.patch(name, 'merge', { data: { v: '1' } })),
        ...names.slice(200, 350).map((name) => () => configMaps.delete(name)),
        ...Array.from(
          { length: 150 },
          (_, index) => () => configMaps.create(configMap(`new-${index}`, { v: 'new' })),
        ),
      ];
      await inParallel(changes, 16, (change) => change());
      await expectCacheEqualsList(informer, seen);
      expect(informer.lister.size).toBe(1000);
      expect(informer.lister.get(`${namespace.name}/cm-0`)?.data).toEqual({ v: '1' });
      expect(informer.lister.get(`${namespace.name}/cm-250`)).toBeUndefined();
      expect(seen.deleted.has(`${namespace.name}/cm-250`)).toBe(true);
      expect(seen.tombstones).toBe(0);
      const health = informer.health();
      expect(health).toMatchObject({ synced: true, ready: true, state: 'watching', failures: 0 });
      expect(Number(health.resourceVersion)).toBeGreaterThan(0);
    } finally {
      await informer.stop();
    }
    expect(informer.health().state).toBe('stopped');
  });
});

describe('an informer whose transform keeps managedFields', () => {
  it.each([
    { mode: 'streaming list', watchList: true },
    { mode: 'LIST', watchList: false },
  ])('hands them to the transform and the cache ($mode)', async ({ watchList }) => {
    const labels = { test: `informer-managed-${watchList ? 'stream' : 'list'}` };
    const configMaps = cs.coreV1.configMaps(namespace.name);
    const name = `managed-${watchList ? 'stream' : 'list'}`;
    await configMaps.apply(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { v: '0' } },
      { fieldManager: 'informer-e2e' },
    );
    const managers = (object: ConfigMap | undefined) =>
      object?.metadata?.managedFields?.map((entry) => entry.manager);
    const transformed: ((string | undefined)[] | undefined)[] = [];
    const custom = new CountingSource(configMaps);
    const withTransform = new Informer<ConfigMap>(custom, {
      watchList,
      labelSelector: labels,
      transform: (object) => {
        transformed.push(managers(object));
        return object;
      },
    });
    const kept = new CountingSource(configMaps);
    const untransformed = new Informer<ConfigMap>(kept, {
      watchList,
      labelSelector: labels,
      transform: false,
    });
    withTransform.start();
    untransformed.start();
    try {
      await withTransform.waitForSync(AbortSignal.timeout(30_000));
      await untransformed.waitForSync(AbortSignal.timeout(30_000));
      await configMaps.patch(name, 'merge', { data: { v: '1' } }, { fieldManager: 'patcher' });
      const key = `${namespace.name}/${name}`;
      await eventually(() => {
        expect(managers(untransformed.lister.get(key))).toEqual(['informer-e2e', 'patcher']);
        expect(managers(withTransform.lister.get(key))).toEqual(['informer-e2e', 'patcher']);
      });
      // The initial object and the update both reached the transform with managedFields.
      expect(transformed).toEqual([['informer-e2e'], ['informer-e2e', 'patcher']]);
      for (const source of [custom, kept]) {
        expect(source.watches.length).toBeGreaterThan(0);
        expect(source.watches.some((options) => options?.omitManagedFields)).toBe(false);
      }
    } finally {
      await withTransform.stop();
      await untransformed.stop();
    }
  });
});

describe('an informer that may list but not watch', () => {
  it('reports a typed forbidden error, backs off, never hot-loops, and says it is not ready', async () => {
    // A user of its own whose Role in the namespace allows `list` of ConfigMaps and nothing else.
    const listUser = await environment().user({
      namespace: namespace.name,
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }],
    });
    const listOnly = await listUser.clientset();
    await eventually(() => listOnly.coreV1.configMaps(namespace.name).list());
    const source = new CountingSource(listOnly.coreV1.configMaps(namespace.name));
    const informer = new Informer<ConfigMap>(source, { watchList: false });
    const errors: InformerError[] = [];
    informer.addErrorHandler((error) => errors.push(error));
    informer.start();
    try {
      await informer.waitForSync(AbortSignal.timeout(10_000));
      await new Promise((resolve) => setTimeout(resolve, 6000));
      const health = informer.health();
      expect(health.synced).toBe(true);
      expect(health.ready).toBe(false);
      expect(health.lastError).toBeInstanceOf(InformerError);
      expect(errors.length).toBeGreaterThanOrEqual(2);
      expect(errors[0]?.code).toBe('ERR_RUNTIME_INFORMER_WATCH');
      expect(isForbidden(errors[0]?.cause)).toBe(true);
      // Backoff 800 ms, 1.6 s, 3.2 s (each up to twice that with jitter): at most 4 tries in 6 s.
      const requests = source.lists.length + source.watches.length;
      expect(source.watches.length).toBeLessThanOrEqual(4);
      expect(requests).toBeLessThanOrEqual(8);
    } finally {
      await informer.stop();
    }
  });
});
