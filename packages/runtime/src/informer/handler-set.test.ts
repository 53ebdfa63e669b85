// HandlerSet on its own: registration, removal, the synced mark, failures and resync. Resync
// runs on setInterval (it takes no clock), so those tests fake setInterval and nothing else.
import type { ConfigMap } from '@k/clientset/core/v1';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IndexedStore } from '../cache/indexed-store.js';
import { objectKey } from '../cache/object-key.js';
import { SILENT_LOGGER, type Logger } from '../logger.js';
import { HandlerSet, type EventHandler } from './handler-set.js';

const configMap = (name: string, resourceVersion = '1'): ConfigMap => ({
  metadata: { name, namespace: 'ns', resourceVersion },
});

/** recorder writes each call as a line prefixed with `name`. */
function recorder(name: string, lines: string[]): EventHandler<ConfigMap> {
  return {
    onAdd: (object, initial) =>
      lines.push(`${name} add ${objectKey(object)}${initial ? ' initial' : ''}`),
    onUpdate: (old, object) =>
      lines.push(
        `${name} ${old === object ? 'resync' : 'update'} ${objectKey(object)}@${object.metadata?.resourceVersion}`,
      ),
    onDelete: (object) => lines.push(`${name} delete ${objectKey(object as ConfigMap)}`),
  };
}

function setOf(objects: ConfigMap[] = [], logger: Logger = SILENT_LOGGER) {
  const store = new IndexedStore<ConfigMap>();
  for (const object of objects) store.set(object);
  return { store, handlers: new HandlerSet<ConfigMap>(store, logger, 'configmaps') };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('HandlerSet', () => {
  it('delivers every change to every handler in the order they were added', () => {
    const { handlers } = setOf();
    const lines: string[] = [];
    handlers.add(recorder('first', lines), 0, false);
    handlers.add(recorder('second', lines), 0, false);
    handlers.added(configMap('a'), true);
    handlers.updated(configMap('a', '1'), configMap('a', '2'));
    handlers.deleted(configMap('a', '3'));
    expect(lines).toEqual([
      'first add ns/a initial',
      'second add ns/a initial',
      'first update ns/a@2',
      'second update ns/a@2',
      'first delete ns/a',
      'second delete ns/a',
    ]);
  });

  it('stops delivering to a removed handler (removing twice is harmless) and keeps the others', () => {
    const { handlers } = setOf();
    const lines: string[] = [];
    const removed = handlers.add(recorder('removed', lines), 0, false);
    handlers.add(recorder('kept', lines), 0, false);
    handlers.added(configMap('a'), false);
    removed.remove();
    removed.remove();
    handlers.added(configMap('b'), false);
    expect(lines).toEqual(['removed add ns/a', 'kept add ns/a', 'kept add ns/b']);
  });

  it('a handler may remove itself while a change is delivered; the others still get it', () => {
    const { handlers } = setOf();
    const lines: string[] = [];
    const once = handlers.add(
      {
        onAdd: (object) => {
          lines.push(`once ${objectKey(object)}`);
          once.remove();
        },
      },
      0,
      false,
    );
    handlers.add(recorder('kept', lines), 0, false);
    handlers.added(configMap('a'), false);
    handlers.added(configMap('b'), false);
    expect(lines).toEqual(['once ns/a', 'kept add ns/a', 'kept add ns/b']);
  });

  it('marks handlers synced when the informer syncs; one added later is synced at once, after the replay', () => {
    const { handlers } = setOf([configMap('a'), configMap('b')]);
    const early = handlers.add({}, 0, false);
    expect(early.hasSynced).toBe(false);
    handlers.synced();
    expect(early.hasSynced).toBe(true);

    const lines: string[] = [];
    const late = handlers.add(recorder('late', lines), 0, true);
    expect(late.hasSynced).toBe(true);
    expect(lines.sort()).toEqual(['late add ns/a initial', 'late add ns/b initial']);
  });

  it('does not replay the cache to a handler added before the sync', () => {
    const { handlers } = setOf([configMap('a')]);
    const lines: string[] = [];
    handlers.add(recorder('early', lines), 0, false);
    expect(lines).toEqual([]);
  });

  it('a handler that throws is logged with its method and resource; the others still run', () => {
    const logged: { message: string; fields: Record<string, unknown> }[] = [];
    const logger: Logger = {
      ...SILENT_LOGGER,
      error: (message, fields = {}) => logged.push({ message, fields: { ...fields } }),
    };
    const { handlers } = setOf([configMap('a')], logger);
    const fail = (): never => {
      throw new Error('bug');
    };
    handlers.add({ onAdd: fail, onUpdate: fail, onDelete: fail }, 0, false);
    const lines: string[] = [];
    handlers.add(recorder('kept', lines), 0, false);
    handlers.added(configMap('b'), false);
    handlers.updated(configMap('b'), configMap('b', '2'));
    handlers.deleted(configMap('b', '3'));
    // The replay to a late handler is guarded too.
    handlers.add({ onAdd: fail }, 0, true);
    expect(lines).toEqual(['kept add ns/b', 'kept update ns/b@2', 'kept delete ns/b']);
    expect(logged).toEqual([
      ...['onAdd', 'onUpdate', 'onDelete', 'onAdd'].map((method) => ({
        message: 'informer event handler threw',
        fields: { resource: 'configmaps', method, error: 'bug' },
      })),
    ]);
  });

  it('resyncs only the handlers that asked, each at its own period, once synced', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { handlers } = setOf([configMap('a'), configMap('b')]);
    const lines: string[] = [];
    handlers.add(recorder('fast', lines), 2000, false);
    handlers.add(recorder('slow', lines), 5000, false);
    handlers.add(recorder('never', lines), 0, false);
    handlers.startResync();
    vi.advanceTimersByTime(2000);
    expect(lines).toEqual([]); // not synced yet: nothing to re-deliver
    handlers.synced();
    vi.advanceTimersByTime(2000);
    expect(lines.sort()).toEqual(['fast resync ns/a@1', 'fast resync ns/b@1']);
    lines.length = 0;
    vi.advanceTimersByTime(1000); // 5 s
    expect(lines.sort()).toEqual(['slow resync ns/a@1', 'slow resync ns/b@1']);
    lines.length = 0;
    vi.advanceTimersByTime(5000); // 10 s
    expect(lines.filter((line) => line.startsWith('fast'))).toHaveLength(6);
    expect(lines.filter((line) => line.startsWith('slow'))).toHaveLength(2);
    expect(lines.filter((line) => line.startsWith('never'))).toHaveLength(0);
  });

  it('raises a resync period under one second to one second', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { handlers } = setOf([configMap('a')]);
    const lines: string[] = [];
    handlers.add(recorder('eager', lines), 10, true);
    lines.length = 0;
    handlers.startResync();
    vi.advanceTimersByTime(999);
    expect(lines).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(lines).toEqual(['eager resync ns/a@1']);
  });

  it('starts the resync of a handler added while resyncing; stops it on remove and on stopResync', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { handlers } = setOf([configMap('a')]);
    const lines: string[] = [];
    const before = handlers.add(recorder('before', lines), 1000, true);
    expect(vi.getTimerCount()).toBe(0); // no timer until the informer runs
    handlers.startResync();
    const during = handlers.add(recorder('during', lines), 1000, true);
    expect(vi.getTimerCount()).toBe(2);
    lines.length = 0;
    vi.advanceTimersByTime(1000);
    expect(lines.sort()).toEqual(['before resync ns/a@1', 'during resync ns/a@1']);

    during.remove();
    expect(vi.getTimerCount()).toBe(1);
    handlers.stopResync();
    expect(vi.getTimerCount()).toBe(0);
    lines.length = 0;
    vi.advanceTimersByTime(5000);
    expect(lines).toEqual([]);

    // A restarted informer resyncs again, once per handler.
    handlers.startResync();
    handlers.startResync();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(1000);
    expect(lines).toEqual(['before resync ns/a@1']);
    before.remove();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('resyncs what the cache holds at each tick', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { store, handlers } = setOf([configMap('a')]);
    const lines: string[] = [];
    handlers.add(recorder('h', lines), 1000, true);
    lines.length = 0;
    handlers.startResync();
    store.set(configMap('a', '7'));
    store.set(configMap('b', '1'));
    vi.advanceTimersByTime(1000);
    expect(lines.sort()).toEqual(['h resync ns/a@7', 'h resync ns/b@1']);
  });
});
