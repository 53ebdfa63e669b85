import type { KubernetesObject } from '@k/clientset';
import type { EventHandler } from '@k/runtime';
import { describe, expect, it } from 'vitest';
import { OwnWrites, type WatchedCache } from './own-writes.js';

/** An informer's cache and its handler, driven by the test as the watch would drive them. */
function informer() {
  const store = new Map<string, KubernetesObject>();
  let handler: EventHandler<KubernetesObject> = {};
  const cache: WatchedCache<KubernetesObject> = {
    lister: { get: (key) => store.get(key) },
    addEventHandler: (added) => (handler = added),
  };
  const deliver = (object: KubernetesObject) => {
    const key = `${object.metadata!.namespace}/${object.metadata!.name}`;
    const old = store.get(key);
    store.set(key, object);
    if (old) handler.onUpdate?.(old, object);
    else handler.onAdd?.(object, false);
  };
  const remove = (key: string) => {
    const old = store.get(key)!;
    store.delete(key);
    handler.onDelete?.(old);
  };
  return { cache, deliver, remove };
}

const at = (resourceVersion: string, label = ''): KubernetesObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: 'ns', name: 'web', resourceVersion, labels: { label } },
});

describe('OwnWrites', () => {
  it('answers with its own write until the informer delivers that version, then with the cache', () => {
    const { cache, deliver } = informer();
    const writes = new OwnWrites(cache);
    expect(writes.get('ns/web')).toBeUndefined();
    writes.remember(at('10', 'mine'));
    expect(writes.get('ns/web')?.metadata?.labels).toEqual({ label: 'mine' });
    deliver(at('9', 'older'));
    expect(writes.get('ns/web')?.metadata?.labels).toEqual({ label: 'mine' });
    expect(writes.pending).toBe(1);
    deliver(at('10', 'mine'));
    expect(writes.pending).toBe(0);
    deliver(at('11', 'theirs'));
    expect(writes.get('ns/web')?.metadata?.labels).toEqual({ label: 'theirs' });
  });

  it('keeps the newest of answers that arrive out of order, and nothing older than the cache', () => {
    const { cache, deliver } = informer();
    const writes = new OwnWrites(cache);
    deliver(at('20', 'cached'));
    writes.remember(at('19', 'stale answer'));
    expect(writes.pending).toBe(0);
    writes.remember(at('22', 'second'));
    writes.remember(at('21', 'first'));
    expect(writes.get('ns/web')?.metadata?.labels).toEqual({ label: 'second' });
    // The informer jumped past it (a relist): the cache is newer, so it wins.
    deliver(at('30', 'relisted'));
    expect(writes.get('ns/web')?.metadata?.labels).toEqual({ label: 'relisted' });
  });

  it('forgets a write when the object is deleted, and after its time to live', () => {
    const { cache, deliver, remove } = informer();
    let now = 0;
    const writes = new OwnWrites(cache, { ttlMs: 1000, now: () => now });
    deliver(at('1'));
    writes.remember(at('2', 'mine'));
    remove('ns/web');
    expect(writes.get('ns/web')).toBeUndefined();

    writes.remember(at('3', 'answer after the delete'));
    expect(writes.get('ns/web')).toBeDefined();
    now = 1000;
    expect(writes.get('ns/web')).toBeUndefined();
    expect(writes.pending).toBe(0);
  });

  it('leaves objects whose resourceVersion is not an integer to the cache', () => {
    const { cache, deliver } = informer();
    const writes = new OwnWrites(cache);
    deliver(at('abc', 'cached'));
    writes.remember(at('xyz', 'mine'));
    expect(writes.pending).toBe(0);
    expect(writes.get('ns/web')?.metadata?.labels).toEqual({ label: 'cached' });
  });
});
