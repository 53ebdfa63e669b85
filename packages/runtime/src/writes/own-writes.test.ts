import type { KubernetesObject } from '@k/clientset';
import { describe, expect, it } from 'vitest';
import { RuntimeError } from '../errors.js';
import { Informer } from '../informer/informer.js';
import type { ListerWatcher } from '../informer/reflector.js';
import { OwnWrites } from './own-writes.js';

/**
 * A real Informer, never started: the test hands it lists and watch events as its reflector
 * would (`replace`, `apply`), so its cache, its handlers and its tombstones are the real ones.
 */
function informer(): Informer<KubernetesObject> {
  const unused: ListerWatcher<KubernetesObject> = {
    list: () => Promise.reject(new Error('not listed in this test')),
    watch: () => Promise.reject(new Error('not watched in this test')),
  };
  const cache = new Informer(unused, { description: 'configmaps' });
  cache.replace([], '1');
  return cache;
}

const at = (resourceVersion: string, label = '', name = 'web'): KubernetesObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: 'ns', name, resourceVersion, labels: { label } },
});

const labelOf = (object: KubernetesObject | undefined) => object?.metadata?.labels?.label;

/** A clock the test moves. */
function fakeClock() {
  const clock = { time: 0, now: () => clock.time };
  return clock;
}

describe('OwnWrites', () => {
  it('answers with its own write until the informer delivers that version, then with the cache', () => {
    const cache = informer();
    const writes = new OwnWrites(cache);
    expect(writes.get('ns/web')).toBeUndefined();
    writes.remember(at('10', 'mine'));
    expect(labelOf(writes.get('ns/web'))).toBe('mine');
    cache.apply('ADDED', at('9', 'older'));
    expect(labelOf(writes.get('ns/web'))).toBe('mine');
    expect(writes.pending).toBe(1);
    cache.apply('MODIFIED', at('10', 'mine'));
    expect(writes.pending).toBe(0);
    cache.apply('MODIFIED', at('11', 'theirs'));
    expect(labelOf(writes.get('ns/web'))).toBe('theirs');
  });

  it('keeps the newest of answers that arrive out of order, and nothing older than the cache', () => {
    const cache = informer();
    const writes = new OwnWrites(cache);
    cache.apply('ADDED', at('20', 'cached'));
    writes.remember(at('19', 'stale answer'));
    expect(writes.pending).toBe(0);
    writes.remember(at('22', 'second'));
    writes.remember(at('21', 'first'));
    expect(labelOf(writes.get('ns/web'))).toBe('second');
    // The informer jumped past it (a relist): the cache is newer, so it wins.
    cache.replace([at('30', 'relisted')], '30');
    expect(labelOf(writes.get('ns/web'))).toBe('relisted');
    expect(writes.pending).toBe(0);
  });

  it('compares resourceVersions as integers, not as text', () => {
    const cache = informer();
    const writes = new OwnWrites(cache);
    cache.apply('ADDED', at('9', 'cached'));
    writes.remember(at('10', 'mine')); // '10' < '9' as text
    expect(labelOf(writes.get('ns/web'))).toBe('mine');
  });

  it('finds an object by its identity: namespace and name, or the name alone when cluster-scoped', () => {
    const cache = informer();
    const writes = new OwnWrites(cache);
    writes.remember(at('5', 'namespaced'));
    const node: KubernetesObject = {
      kind: 'Node',
      metadata: { name: 'web', resourceVersion: '6' },
    };
    writes.remember(node);
    expect(labelOf(writes.get({ metadata: { namespace: 'ns', name: 'web' } }))).toBe('namespaced');
    expect(writes.get({ metadata: { name: 'web' } })).toBe(node);
    expect(writes.get('web')).toBe(node);
    expect(writes.get({ metadata: { namespace: 'other', name: 'web' } })).toBeUndefined();
  });

  it('forgets a write when the object is deleted, and refuses an answer older than the delete', () => {
    const cache = informer();
    const writes = new OwnWrites(cache);
    cache.apply('ADDED', at('1'));
    writes.remember(at('2', 'mine'));
    cache.apply('DELETED', at('3'));
    expect(writes.get('ns/web')).toBeUndefined();
    expect(writes.pending).toBe(0);
    // The answer of a write that raced the delete arrives after it: it is not kept.
    writes.remember(at('2', 'late answer'));
    expect(writes.get('ns/web')).toBeUndefined();
    // A new object of that name (created after the delete) is.
    writes.remember(at('4', 'created again'));
    expect(labelOf(writes.get('ns/web'))).toBe('created again');
  });

  it('forgets a write whose delete it missed (a tombstone from a relist)', () => {
    const cache = informer();
    const writes = new OwnWrites(cache);
    cache.apply('ADDED', at('1'));
    writes.remember(at('2', 'mine'));
    cache.replace([], '5');
    expect(writes.pending).toBe(0);
    expect(writes.get('ns/web')).toBeUndefined();
  });

  it('forgets a write after its time to live when nothing delivers it', () => {
    const cache = informer();
    const clock = fakeClock();
    const writes = new OwnWrites(cache, { ttlMs: 1000, clock });
    writes.remember(at('3', 'never delivered'));
    writes.remember(at('4', 'other', 'api'));
    clock.time = 999;
    expect(writes.get('ns/web')).toBeDefined();
    clock.time = 1000;
    expect(writes.get('ns/web')).toBeUndefined();
    expect(writes.pending).toBe(0);
    // Deletes are remembered as long: then an old answer is kept again.
    cache.apply('ADDED', at('5'));
    cache.apply('DELETED', at('6'));
    writes.remember(at('5', 'old'));
    expect(writes.pending).toBe(0);
    clock.time = 2000;
    writes.remember(at('5', 'old'));
    expect(writes.pending).toBe(1);
  });

  it('leaves objects whose resourceVersion is not an integer etcd issues to the cache', () => {
    const cache = informer();
    const writes = new OwnWrites(cache);
    cache.apply('ADDED', at('abc', 'cached'));
    writes.remember(at('xyz', 'mine'));
    writes.remember(at('1'.repeat(21), 'too long for an int64'));
    writes.remember({ metadata: { namespace: 'ns', name: 'web' } });
    expect(writes.pending).toBe(0);
    expect(labelOf(writes.get('ns/web'))).toBe('cached');
  });

  it('keeps many writes, dropping the expired ones as it goes', () => {
    const cache = informer();
    const clock = fakeClock();
    const writes = new OwnWrites(cache, { ttlMs: 10, clock });
    for (let index = 0; index < 10_000; index++) {
      clock.time = index;
      writes.remember(at(`${index + 1}`, '', `object-${index}`));
    }
    expect(writes.pending).toBe(10);
  });

  it('refuses a time to live that is not a number of milliseconds', () => {
    for (const ttlMs of [-1, Number.NaN, Number.POSITIVE_INFINITY, '5' as unknown as number]) {
      const error = (() => {
        try {
          new OwnWrites(informer(), { ttlMs });
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(RuntimeError);
      expect(error).toMatchObject({ code: 'ERR_RUNTIME_INVALID_ARGUMENT' });
      expect((error as Error).message).toContain('ttlMs');
    }
  });
});
