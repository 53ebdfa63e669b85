// The Informer over an in-memory source (../__fixtures__/memory-source.ts): sync, changes,
// relists, handlers, health and stop. The real server's behaviour is in e2e/informer*.e2e.test.ts.
import { configMapsResource, type ConfigMap } from '@k/clientset/core/v1';
import { FakeClock } from '@k/rest/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeletedFinalStateUnknown, objectKey } from '../cache/object-key.js';
import { InformerError } from '../errors.js';
import type { Logger } from '../logger.js';
import { MemorySource, statusError } from '../__fixtures__/memory-source.js';
import type { EventHandler } from './handler-set.js';
import { Informer, type InformerOptions } from './informer.js';

const configMap = (
  name: string,
  data: Record<string, string> = {},
  labels?: Record<string, string>,
): ConfigMap => ({
  metadata: { name, namespace: 'ns', ...(labels ? { labels } : {}) },
  data,
});

/** settle lets every pending promise callback run (the source and the clock need no I/O). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** recorder is a handler writing each call as a line: `add ns/a initial`, `update ns/a 2->3`, … */
function recorder(lines: string[]): EventHandler<ConfigMap> {
  return {
    onAdd: (object, initial) => lines.push(`add ${objectKey(object)}${initial ? ' initial' : ''}`),
    onUpdate: (old, object) =>
      lines.push(
        `update ${objectKey(object)} ${old.metadata?.resourceVersion}->${object.metadata?.resourceVersion}`,
      ),
    onDelete: (object) =>
      lines.push(
        object instanceof DeletedFinalStateUnknown
          ? `tombstone ${object.key}`
          : `delete ${objectKey(object)}`,
      ),
  };
}

const running: Informer<ConfigMap>[] = [];

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(running.splice(0).map((informer) => informer.stop()));
});

/** informerOf makes an informer on a fake clock (no jitter), to be stopped after the test. */
function informerOf(source: MemorySource<ConfigMap>, options: InformerOptions<ConfigMap> = {}) {
  const clock = new FakeClock();
  const informer = new Informer<ConfigMap>(source, { clock, random: () => 0, ...options });
  running.push(informer);
  return { informer, clock };
}

/** synced waits for the informer's sync and for the watch it opens next. */
async function synced(informer: Informer<ConfigMap>): Promise<void> {
  await informer.waitForSync();
  await settle();
}

/** advance moves the fake clock past a backoff, then lets everything it started settle. */
async function advance(clock: FakeClock, milliseconds: number): Promise<void> {
  await clock.advance(milliseconds);
  await settle();
}

describe('Informer', () => {
  it('syncs by streaming list, then watches from the resourceVersion of the closing bookmark', async () => {
    const source = new MemorySource<ConfigMap>();
    source.create(configMap('a'));
    source.create(configMap('b'));
    const { informer } = informerOf(source);
    const lines: string[] = [];
    const registration = informer.addEventHandler(recorder(lines));
    expect(registration.hasSynced).toBe(false);
    informer.start();
    await synced(informer);
    expect(informer.hasSynced).toBe(true);
    expect(registration.hasSynced).toBe(true);
    expect(lines).toEqual(['add ns/a initial', 'add ns/b initial']);
    expect(informer.lister.keys().sort()).toEqual(['ns/a', 'ns/b']);
    expect(source.lists).toHaveLength(0);
    expect(source.watches).toHaveLength(2);
    expect(source.watches[0]).toMatchObject({
      sendInitialEvents: true,
      resourceVersionMatch: 'NotOlderThan',
      allowWatchBookmarks: true,
    });
    expect(source.watches[1]).toMatchObject({ resourceVersion: source.resourceVersion });
    expect(source.watches[1]?.sendInitialEvents).toBeUndefined();
    expect(source.openWatches).toBe(1);
  });

  it('syncs by paged LIST when the server does not stream lists, and stops asking for streams', async () => {
    const source = new MemorySource<ConfigMap>({ watchList: false });
    for (const name of ['a', 'b', 'c']) source.create(configMap(name));
    const { informer, clock } = informerOf(source, { pageSize: 2 });
    informer.start();
    await synced(informer);
    expect(informer.lister.keys().sort()).toEqual(['ns/a', 'ns/b', 'ns/c']);
    expect(source.lists).toHaveLength(2);
    expect(source.lists[0]).toMatchObject({ resourceVersion: '0', limit: 2 });
    expect(source.lists[1]?.continue).toEqual(expect.any(String));
    const listed = source.resourceVersion;
    expect(source.watches.map((options) => options.sendInitialEvents)).toEqual([true, undefined]);
    expect(source.watches[1]?.resourceVersion).toBe(listed);

    // A relist (after 410) lists in pages again: the 422 turned streaming lists off for good.
    source.stallWatches();
    source.create(configMap('d'));
    source.breakWatches(statusError(410, 'Expired'));
    await settle();
    await advance(clock, 800);
    expect(source.watches.filter((options) => options.sendInitialEvents)).toHaveLength(1);
    expect(source.lists).toHaveLength(4);
    expect(source.lists[2]).toMatchObject({
      resourceVersion: listed,
      resourceVersionMatch: 'NotOlderThan',
      limit: 2,
    });
    expect(informer.lister.get('ns/d')).toBeDefined();
  });

  it('delivers adds, updates and deletes from the watch to every handler, in order', async () => {
    const source = new MemorySource<ConfigMap>();
    const a = source.create(configMap('a'));
    source.create(configMap('b'));
    const { informer } = informerOf(source);
    const first: string[] = [];
    const second: string[] = [];
    informer.addEventHandler(recorder(first));
    informer.addEventHandler(recorder(second));
    informer.start();
    await synced(informer);
    first.length = 0;
    second.length = 0;

    const c = source.create(configMap('c'));
    const a2 = source.update({ ...a, data: { key: 'value' } });
    source.delete('ns/b');
    const c2 = source.update({ ...c, data: { more: 'yes' } });
    await settle();
    const expected = [
      `add ns/c`,
      `update ns/a ${a.metadata?.resourceVersion}->${a2.metadata?.resourceVersion}`,
      'delete ns/b',
      `update ns/c ${c.metadata?.resourceVersion}->${c2.metadata?.resourceVersion}`,
    ];
    expect(first).toEqual(expected);
    expect(second).toEqual(expected);
    expect(informer.lister.keys().sort()).toEqual(['ns/a', 'ns/c']);
    expect(informer.lister.get('ns/a')?.data).toEqual({ key: 'value' });
    expect(informer.health().resourceVersion).toBe(c2.metadata?.resourceVersion);
  });

  it('resumes a cut watch from its last resourceVersion: what it missed is replayed, no relist', async () => {
    const source = new MemorySource<ConfigMap>();
    source.create(configMap('a'));
    const { informer } = informerOf(source);
    const lines: string[] = [];
    informer.addEventHandler(recorder(lines));
    informer.start();
    await synced(informer);
    source.bookmark(); // something received: the watch is not "very short"
    await settle();
    source.stallWatches();
    source.create(configMap('b')); // lost on the stalled connection
    source.breakWatches();
    await settle();
    expect(lines).toEqual(['add ns/a initial', 'add ns/b']);
    const health = informer.health();
    expect(health.watchRestarts).toBe(1);
    expect(health.relists).toBe(0);
    expect(health.failures).toBe(0);
    expect(source.watches.filter((options) => options.sendInitialEvents)).toHaveLength(1);
  });

  it.each([
    ['a streaming relist', true],
    ['a LIST relist', false],
  ])(
    'after 410 Gone, %s delivers the differences and a tombstone for a delete it missed',
    async (_name, watchList) => {
      const source = new MemorySource<ConfigMap>();
      const a = source.create(configMap('a'));
      source.create(configMap('b'));
      source.create(configMap('same'));
      const { informer, clock } = informerOf(source, { watchList });
      const lines: string[] = [];
      informer.addEventHandler(recorder(lines));
      informer.start();
      await synced(informer);
      source.bookmark();
      await settle();
      lines.length = 0;

      // Disconnected: the watch hears nothing of these, and the history goes with a compaction.
      source.stallWatches();
      const a2 = source.update({ ...a, data: { changed: 'yes' } });
      source.delete('ns/b');
      source.create(configMap('c'));
      source.compact();
      source.breakWatches(); // resumes from its last resourceVersion: 410 → relist
      await settle();
      await advance(clock, 800);

      expect(lines).toEqual([
        `update ns/a ${a.metadata?.resourceVersion}->${a2.metadata?.resourceVersion}`,
        'add ns/c',
        'tombstone ns/b',
      ]);
      expect(informer.lister.keys().sort()).toEqual(['ns/a', 'ns/c', 'ns/same']);
      expect(informer.health()).toMatchObject({ relists: 1, ready: true, failures: 0 });

      // It watches again after the relist: a later change arrives.
      source.create(configMap('d'));
      await settle();
      expect(lines.at(-1)).toBe('add ns/d');
    },
  );

  it('gives the tombstone the last cached state of the object it missed', async () => {
    const source = new MemorySource<ConfigMap>();
    const b = source.create(configMap('b', { last: 'state' }));
    const { informer, clock } = informerOf(source);
    const tombstones: DeletedFinalStateUnknown<ConfigMap>[] = [];
    informer.addEventHandler({
      onDelete: (object) => {
        if (object instanceof DeletedFinalStateUnknown) tombstones.push(object);
      },
    });
    informer.start();
    await synced(informer);
    source.bookmark();
    await settle();
    source.stallWatches();
    source.delete('ns/b');
    source.compact();
    source.breakWatches();
    await settle();
    await advance(clock, 800);
    expect(tombstones).toHaveLength(1);
    expect(tombstones[0]?.key).toBe('ns/b');
    expect(tombstones[0]?.object.data).toEqual({ last: 'state' });
    expect(tombstones[0]?.object.metadata?.uid).toBe(b.metadata?.uid);
  });

  it('waitForSync rejects with ERR_RUNTIME_NOT_SYNCED and the last failure as cause when its signal aborts', async () => {
    const source = new MemorySource<ConfigMap>();
    const forbidden = statusError(403, 'Forbidden', 'configmaps is forbidden');
    source.failNext('list', forbidden);
    const { informer, clock } = informerOf(source, { watchList: false, description: 'configmaps' });
    informer.start();
    const controller = new AbortController();
    const waiting = informer.waitForSync(controller.signal);
    await settle();
    controller.abort();
    const error = await waiting.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InformerError);
    expect(error).toMatchObject({ code: 'ERR_RUNTIME_NOT_SYNCED', resource: 'configmaps' });
    expect((error as Error).message).toMatch(/^informer for configmaps did not sync: /);
    const cause = (error as Error).cause;
    expect(cause).toBeInstanceOf(InformerError);
    expect(cause).toMatchObject({ code: 'ERR_RUNTIME_INFORMER_LIST' });
    expect((cause as Error).cause).toBe(forbidden);
    expect(cause).toBe(informer.health().lastError);

    // It backs off and tries again by itself: a later wait resolves.
    await advance(clock, 800);
    await synced(informer);
    expect(informer.hasSynced).toBe(true);
  });

  it('waitForSync rejects at once for an aborted signal, with its reason as cause when nothing failed', async () => {
    const source = new MemorySource<ConfigMap>();
    source.stallNext('watch'); // the streaming list never answers
    const { informer } = informerOf(source);
    informer.start();
    await settle();
    const reason = new Error('gave up');
    const error = await informer
      .waitForSync(AbortSignal.abort(reason))
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'ERR_RUNTIME_NOT_SYNCED' });
    expect((error as Error).cause).toBe(reason);
    expect(informer.hasSynced).toBe(false);
    expect(informer.health()).toMatchObject({ synced: false, ready: false, state: 'listing' });
  });

  it('replays the cache to a handler added after the sync as onAdd(object, true), then sends it changes', async () => {
    const source = new MemorySource<ConfigMap>();
    source.create(configMap('a'));
    source.create(configMap('b'));
    const { informer } = informerOf(source);
    informer.start();
    await synced(informer);
    const lines: string[] = [];
    const registration = informer.addEventHandler(recorder(lines));
    expect(registration.hasSynced).toBe(true);
    expect(lines.sort()).toEqual(['add ns/a initial', 'add ns/b initial']);
    source.create(configMap('c'));
    await settle();
    expect(lines.at(-1)).toBe('add ns/c');
  });

  it('a handler that throws does not stop the others (and is logged)', async () => {
    const source = new MemorySource<ConfigMap>();
    const a = source.create(configMap('a'));
    const errors: Record<string, unknown>[] = [];
    const logger: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: (_message, fields) => errors.push({ ...fields }),
    };
    const { informer } = informerOf(source, { logger, description: 'configmaps' });
    const fail = (): never => {
      throw new Error('handler bug');
    };
    informer.addEventHandler({ onAdd: fail, onUpdate: fail, onDelete: fail });
    const lines: string[] = [];
    informer.addEventHandler(recorder(lines));
    informer.start();
    await synced(informer);
    source.update({ ...a, data: { x: 'y' } });
    source.delete('ns/a');
    await settle();
    expect(lines).toEqual([
      'add ns/a initial',
      expect.stringMatching(/^update ns\/a /),
      'delete ns/a',
    ]);
    expect(errors.map((fields) => fields['method'])).toEqual(['onAdd', 'onUpdate', 'onDelete']);
    expect(errors[0]).toMatchObject({ resource: 'configmaps', error: 'handler bug' });
    expect(informer.health().failures).toBe(0);
  });

  it('re-delivers every cached object as onUpdate(object, object) to the handlers that asked for a resync', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const source = new MemorySource<ConfigMap>();
    source.create(configMap('a'));
    source.create(configMap('b'));
    const { informer } = informerOf(source);
    const resynced: string[] = [];
    const plain: string[] = [];
    const registration = informer.addEventHandler(
      {
        onUpdate: (old, object) =>
          resynced.push(`${objectKey(object)}${old === object ? '' : ' (another object)'}`),
      },
      { resyncPeriodMs: 5000 },
    );
    informer.addEventHandler(recorder(plain));
    informer.start();
    await synced(informer);
    plain.length = 0;
    vi.advanceTimersByTime(4999);
    expect(resynced).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(resynced.sort()).toEqual(['ns/a', 'ns/b']);
    vi.advanceTimersByTime(5000);
    expect(resynced).toHaveLength(4);
    expect(plain).toEqual([]);

    registration.remove();
    vi.advanceTimersByTime(10_000);
    expect(resynced).toHaveLength(4);

    const late: string[] = [];
    informer.addEventHandler(
      { onUpdate: (_old, object) => late.push(objectKey(object)) },
      { resyncPeriodMs: 1000 },
    );
    vi.advanceTimersByTime(1000);
    expect(late.sort()).toEqual(['ns/a', 'ns/b']);
    await informer.stop();
    vi.advanceTimersByTime(10_000);
    expect(late).toHaveLength(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('drops managedFields by default, on lists and watches, and asks watches to skip them', async () => {
    const managedFields = [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1' }];
    for (const watchList of [true, false]) {
      const source = new MemorySource<ConfigMap>();
      source.create({ metadata: { ...configMap('a').metadata, managedFields } });
      const { informer } = informerOf(source, { watchList });
      informer.start();
      await synced(informer);
      source.create({ metadata: { ...configMap('b').metadata, managedFields } });
      await settle();
      expect(informer.lister.get('ns/a')?.metadata).not.toHaveProperty('managedFields');
      expect(informer.lister.get('ns/b')?.metadata).not.toHaveProperty('managedFields');
      expect(source.watches.at(-1)?.omitManagedFields).toBe(true);
    }
  });

  it('keeps managedFields with transform: false, and runs a transform of its own on every object', async () => {
    const managedFields = [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1' }];
    const source = new MemorySource<ConfigMap>();
    source.create({ metadata: { ...configMap('a').metadata, managedFields } });
    const { informer: kept } = informerOf(source, { transform: false });
    kept.start();
    await synced(kept);
    expect(kept.lister.get('ns/a')?.metadata?.managedFields).toEqual(managedFields);
    expect(source.watches.at(-1)).not.toHaveProperty('omitManagedFields');

    const { informer: marked } = informerOf(source, {
      transform: (object) => ({ ...object, data: { ...object.data, seen: 'yes' } }),
    });
    marked.start();
    await synced(marked);
    source.create(configMap('b'));
    await settle();
    expect(marked.lister.get('ns/a')?.data).toEqual({ seen: 'yes' });
    expect(marked.lister.get('ns/b')?.data).toEqual({ seen: 'yes' });
    // A transform of its own replaces the default: managedFields stay.
    expect(marked.lister.get('ns/a')?.metadata?.managedFields).toEqual(managedFields);
  });

  it('keeps its indexes in step with the cache', async () => {
    const source = new MemorySource<ConfigMap>();
    const a = source.create(configMap('a', {}, { app: 'web' }));
    source.create(configMap('b', {}, { app: 'db' }));
    source.create({ metadata: { name: 'c', namespace: 'other', labels: { app: 'web' } } });
    const { informer } = informerOf(source, {
      indexers: { byApp: (object) => [object.metadata?.labels?.['app'] ?? ''] },
    });
    informer.start();
    await synced(informer);
    const names = (objects: ConfigMap[]): string[] => objects.map(objectKey).sort();
    expect(names(informer.lister.byIndex('byApp', 'web'))).toEqual(['ns/a', 'other/c']);
    expect(names(informer.lister.list('ns'))).toEqual(['ns/a', 'ns/b']);

    source.update({ ...a, metadata: { ...a.metadata, labels: { app: 'db' } } });
    source.delete('ns/b');
    await settle();
    expect(names(informer.lister.byIndex('byApp', 'web'))).toEqual(['other/c']);
    expect(names(informer.lister.byIndex('byApp', 'db'))).toEqual(['ns/a']);
    expect(informer.store.indexValues('namespace').sort()).toEqual(['ns', 'other']);
    expect(() => informer.lister.byIndex('missing', 'x')).toThrow(/index missing does not exist/);
  });

  it('reports its health: synced, ready, failures and the last error', async () => {
    const source = new MemorySource<ConfigMap>();
    source.create(configMap('a'));
    const { informer, clock } = informerOf(source, { description: 'configmaps' });
    const reported: InformerError[] = [];
    informer.addErrorHandler((error) => reported.push(error));
    expect(informer.health()).toMatchObject({
      resource: 'configmaps',
      state: 'starting',
      synced: false,
      ready: false,
      failures: 0,
      lastError: undefined,
    });
    informer.start();
    await synced(informer);
    expect(informer.health()).toMatchObject({
      state: 'watching',
      synced: true,
      ready: true,
      resourceVersion: source.resourceVersion,
      failures: 0,
      consecutiveFailures: 0,
      lastError: undefined,
    });

    // A cut watch, and 429 when it watches again: a failure, not ready while it backs off.
    const tooMany = statusError(429, 'TooManyRequests');
    source.failNext('watch', tooMany);
    source.bookmark();
    await settle();
    source.breakWatches();
    await settle();
    const failing = informer.health();
    expect(failing).toMatchObject({
      state: 'backoff',
      synced: true,
      ready: false,
      failures: 1,
      consecutiveFailures: 1,
    });
    expect(failing.lastError).toMatchObject({ code: 'ERR_RUNTIME_INFORMER_WATCH' });
    expect(failing.lastError?.cause).toBe(tooMany);
    expect(reported).toEqual([failing.lastError]);

    await advance(clock, 800);
    const recovered = informer.health();
    expect(recovered).toMatchObject({
      state: 'watching',
      ready: true,
      failures: 1,
      consecutiveFailures: 0,
    });
    expect(recovered.lastError).toBe(failing.lastError);
  });

  it('stop() ends the watch and every retry; running flips; nothing arrives after', async () => {
    const source = new MemorySource<ConfigMap>();
    source.create(configMap('a'));
    const { informer, clock } = informerOf(source);
    const lines: string[] = [];
    informer.addEventHandler(recorder(lines));
    expect(informer.running).toBe(false);
    informer.start();
    expect(informer.running).toBe(true);
    await synced(informer);
    expect(source.openWatches).toBe(1);
    await informer.stop();
    expect(informer.running).toBe(false);
    expect(source.openWatches).toBe(0);
    expect(informer.health()).toMatchObject({ state: 'stopped', ready: false, synced: true });
    const requests = source.lists.length + source.watches.length;
    source.create(configMap('b'));
    await advance(clock, 60_000);
    expect(lines).toEqual(['add ns/a initial']);
    expect(source.lists.length + source.watches.length).toBe(requests);
  });

  it('stops when the signal given to start() aborts, also while it backs off', async () => {
    const source = new MemorySource<ConfigMap>();
    source.failNext('watch', statusError(500, 'InternalError'));
    source.failNext('list', statusError(500, 'InternalError'));
    const { informer } = informerOf(source);
    const controller = new AbortController();
    informer.start(controller.signal);
    await settle();
    expect(informer.health().state).toBe('backoff');
    controller.abort();
    await settle();
    expect(informer.running).toBe(false);
    expect(informer.health().state).toBe('stopped');
  });

  it('start() after stop() keeps the cache and delivers only what changed meanwhile', async () => {
    const source = new MemorySource<ConfigMap>();
    const a = source.create(configMap('a'));
    source.create(configMap('b'));
    const { informer } = informerOf(source);
    const lines: string[] = [];
    informer.addEventHandler(recorder(lines));
    informer.start();
    await synced(informer);
    await informer.stop();
    lines.length = 0;
    const a2 = source.update({ ...a, data: { changed: 'yes' } });
    source.delete('ns/b');
    source.create(configMap('c'));
    informer.start();
    expect(informer.running).toBe(true);
    await settle();
    // It relists: the delete it missed arrives as a tombstone.
    expect(lines).toEqual([
      `update ns/a ${a.metadata?.resourceVersion}->${a2.metadata?.resourceVersion}`,
      'add ns/c',
      'tombstone ns/b',
    ]);
    expect(informer.lister.keys().sort()).toEqual(['ns/a', 'ns/c']);
    expect(informer.health()).toMatchObject({ ready: true, failures: 0 });
  });

  it('asks every list and watch for its selectors: an object that stops matching leaves the cache', async () => {
    for (const watchList of [true, false]) {
      const source = new MemorySource<ConfigMap>();
      const a = source.create(configMap('a', {}, { app: 'web' }));
      source.create(configMap('b', {}, { app: 'db' }));
      source.create({ metadata: { name: 'c', namespace: 'other', labels: { app: 'web' } } });
      const { informer } = informerOf(source, {
        watchList,
        labelSelector: { app: 'web' },
        fieldSelector: 'metadata.namespace=ns',
      });
      const lines: string[] = [];
      informer.addEventHandler(recorder(lines));
      informer.start();
      await synced(informer);
      expect(informer.lister.keys()).toEqual(['ns/a']);
      for (const options of [...source.lists, ...source.watches]) {
        expect(options).toMatchObject({
          labelSelector: 'app=web',
          fieldSelector: 'metadata.namespace=ns',
        });
      }
      source.update({ ...a, metadata: { ...a.metadata, labels: { app: 'db' } } });
      source.create(configMap('d', {}, { app: 'web' }));
      await settle();
      expect(lines).toEqual(['add ns/a initial', 'delete ns/a', 'add ns/d']);
      expect(informer.lister.keys()).toEqual(['ns/d']);
    }
  });

  it('start() twice is a no-op: one list, one watch, each object once', async () => {
    const source = new MemorySource<ConfigMap>();
    source.create(configMap('a'));
    const { informer } = informerOf(source);
    const lines: string[] = [];
    informer.addEventHandler(recorder(lines));
    informer.start();
    informer.start();
    await synced(informer);
    informer.start();
    await settle();
    expect(lines).toEqual(['add ns/a initial']);
    expect(source.watches).toHaveLength(2); // the streaming list, then the watch
    expect(source.openWatches).toBe(1);
  });

  it('keys cluster-scoped objects by name beside namespaced ones', async () => {
    const source = new MemorySource<ConfigMap>();
    source.create({ metadata: { name: 'cluster-wide' } });
    source.create(configMap('cluster-wide'));
    const { informer } = informerOf(source);
    const lines: string[] = [];
    informer.addEventHandler(recorder(lines));
    informer.start();
    await synced(informer);
    expect(informer.lister.keys().sort()).toEqual(['cluster-wide', 'ns/cluster-wide']);
    expect(informer.lister.get('cluster-wide')?.metadata?.namespace).toBeUndefined();
    expect(informer.lister.list('ns').map(objectKey)).toEqual(['ns/cluster-wide']);
    source.delete('cluster-wide');
    await settle();
    expect(lines.at(-1)).toBe('delete cluster-wide');
    expect(informer.lister.keys()).toEqual(['ns/cluster-wide']);
  });

  it('names itself after a typed client and gives list items their apiVersion and kind', async () => {
    const source = new MemorySource<ConfigMap>({ descriptor: configMapsResource });
    source.create(configMap('a'));
    for (const watchList of [true, false]) {
      const { informer } = informerOf(source.inNamespace('ns'), { watchList });
      expect(informer.resource).toBe('configmaps in namespace ns');
      informer.start();
      await synced(informer);
      expect(informer.lister.get('ns/a')).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    }
  });

  it.each([
    ['a streaming list', true],
    ['a LIST', false],
  ])(
    'caches hostile objects from %s and the watch: a __proto__ key, 10,000 levels deep',
    async (_name, watchList) => {
      const depth = 10_000;
      let deep: Record<string, unknown> = { leaf: 'bottom' };
      for (let level = 1; level < depth; level += 1) deep = { next: deep };
      const hostile = (name: string): ConfigMap =>
        ({
          ...(JSON.parse('{"data":{"__proto__":{"polluted":"yes"},"plain":"value"}}') as object),
          metadata: { name, namespace: 'ns' },
          spec: deep,
        }) as ConfigMap;
      const source = new MemorySource<ConfigMap>({ descriptor: configMapsResource });
      source.create(hostile('listed'));
      const { informer } = informerOf(source, { watchList });
      const errors: InformerError[] = [];
      informer.addErrorHandler((error) => errors.push(error));
      informer.start();
      await synced(informer);
      const watched = source.create(hostile('watched'));
      source.update({ ...watched, data: { plain: 'changed' } });
      await settle();

      for (const key of ['ns/listed', 'ns/watched']) {
        const cached = informer.lister.get(key) as unknown as Record<string, unknown>;
        expect(cached).toBeDefined();
        let node = cached['spec'] as Record<string, unknown>;
        let levels = 1;
        while (node['next'] !== undefined) {
          node = node['next'] as Record<string, unknown>;
          levels += 1;
        }
        expect(levels).toBe(depth);
        expect(node['leaf']).toBe('bottom');
      }
      const listedData = informer.lister.get('ns/listed')?.data as Record<string, unknown>;
      expect(Object.hasOwn(listedData, '__proto__')).toBe(true);
      expect(Object.getPrototypeOf(listedData)).toBe(Object.prototype);
      expect(listedData['plain']).toBe('value');
      expect(informer.lister.get('ns/watched')?.data).toEqual({ plain: 'changed' });
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      expect(errors).toEqual([]);
      expect(informer.health().failures).toBe(0);
    },
  );
});
