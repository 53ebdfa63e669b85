import { ignoreNotFound, type Clientset } from '@k/clientset';
import type { ConfigMap } from '@k/clientset/core/v1';
import { isInvalid, isNotFound } from '@k/rest';
import { useTestNamespace } from '@k/envtest/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addFinalizerOnServer,
  removeFinalizerOnServer,
  type FinalizerClient,
} from '../src/finalizers.js';
import { ControllerBuilder, SILENT_LOGGER, withFinalizer } from '../src/index.js';
import { clientsetFor, eventually } from './helpers.js';

// Finalizer patches from two clients (two clientsets, two connection pools) racing on the real
// API server: the guarded JSON patches keep both writers' finalizers where plain merge patches
// lose one, and removing the last finalizer of a deleted object lets the deletion finish.
const namespace = useTestNamespace({ prefix: 'runtime-finalizers' });
let first: Clientset;
let second: Clientset;

beforeAll(async () => {
  [first, second] = await Promise.all([clientsetFor(), clientsetFor()]);
});

afterAll(async () => {
  await Promise.all([first?.close(), second?.close()]);
});

/** counting wraps a client and counts the requests the helpers send through it. */
function counting(client: FinalizerClient<ConfigMap>): FinalizerClient<ConfigMap> & {
  patches: number;
  gets: number;
} {
  const counted = {
    patches: 0,
    gets: 0,
    get: (name: string) => {
      counted.gets += 1;
      return client.get(name);
    },
    patch: (...args: Parameters<FinalizerClient<ConfigMap>['patch']>) => {
      counted.patches += 1;
      return client.patch(...args);
    },
  };
  return counted;
}

async function configMap(name: string, finalizers?: string[]): Promise<ConfigMap> {
  return first.coreV1.configMaps(namespace.name).create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ...(finalizers ? { finalizers } : {}) },
  });
}

/** release clears the finalizers a test left, so the namespace can go. */
async function release(name: string): Promise<void> {
  try {
    await first.coreV1
      .configMaps(namespace.name)
      .patch(name, 'merge', { metadata: { finalizers: null } });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

describe('finalizer patches on the real server', () => {
  it('plain merge patches from two writers of the same read lose a finalizer (the race the guard closes)', async () => {
    const base = await configMap('unguarded', ['k.example/base']);
    try {
      const finalizers = base.metadata!.finalizers!;
      await Promise.all(
        [
          [first, 'k.example/first'],
          [second, 'k.example/second'],
        ].map(([client, finalizer]) =>
          (client as Clientset).coreV1.configMaps(namespace.name).patch('unguarded', 'merge', {
            metadata: { finalizers: [...finalizers, finalizer as string] },
          }),
        ),
      );
      const stored = await first.coreV1.configMaps(namespace.name).get('unguarded');
      expect(stored.metadata?.finalizers).toHaveLength(2);
    } finally {
      await release('unguarded');
    }
  });

  it('two clients adding at once from the same read keep both finalizers, the loser retrying once', async () => {
    for (const [name, initial] of [
      ['guarded-empty', undefined],
      ['guarded-listed', ['k.example/base']],
    ] as const) {
      const base = await configMap(name, initial && [...initial]);
      try {
        const clients = [first, second].map((clientset) =>
          counting(clientset.coreV1.configMaps(namespace.name)),
        );
        const results = await Promise.all(
          clients.map((client, index) =>
            addFinalizerOnServer(client, base, `k.example/writer-${index}`),
          ),
        );
        const stored = await first.coreV1.configMaps(namespace.name).get(name);
        expect(stored.metadata?.finalizers?.toSorted()).toEqual(
          [...(initial ?? []), 'k.example/writer-0', 'k.example/writer-1'].toSorted(),
        );
        // One patch won, the other's test failed (422), it read the object again and won then.
        expect(clients.map((client) => client.patches).toSorted()).toEqual([1, 2]);
        expect(clients.map((client) => client.gets).toSorted()).toEqual([0, 1]);
        expect(results.map((result) => result.metadata?.finalizers?.length).toSorted()).toEqual([
          (initial?.length ?? 0) + 1,
          (initial?.length ?? 0) + 2,
        ]);
        // Already there: nothing is sent.
        const again = counting(first.coreV1.configMaps(namespace.name));
        expect(await addFinalizerOnServer(again, stored, 'k.example/writer-0')).toBe(stored);
        expect(again.patches).toBe(0);
      } finally {
        await release(name);
      }
    }
  });

  it('removing finalizers at once keeps the other writer’s removal, and the last one lets the delete complete', async () => {
    const base = await configMap('deleted', ['k.example/a', 'k.example/b', 'k.example/c']);
    try {
      await first.coreV1.configMaps(namespace.name).delete('deleted');
      const terminating = await first.coreV1.configMaps(namespace.name).get('deleted');
      expect(terminating.metadata?.deletionTimestamp).toBeDefined();

      await Promise.all([
        removeFinalizerOnServer(first.coreV1.configMaps(namespace.name), base, 'k.example/a'),
        removeFinalizerOnServer(second.coreV1.configMaps(namespace.name), base, 'k.example/b'),
      ]);
      const left = await first.coreV1.configMaps(namespace.name).get('deleted');
      expect(left.metadata?.finalizers).toEqual(['k.example/c']);

      await removeFinalizerOnServer(first.coreV1.configMaps(namespace.name), left, 'k.example/c');
      await expect(first.coreV1.configMaps(namespace.name).get('deleted')).rejects.toSatisfy(
        isNotFound,
      );
      // From a stale read of an object that is gone: nothing left to do.
      expect(
        await removeFinalizerOnServer(first.coreV1.configMaps(namespace.name), left, 'k.example/c'),
      ).toBeUndefined();
    } finally {
      await release('deleted');
    }
  });

  it('passes on a refusal that is not a race (an invalid finalizer name) after one fresh read', async () => {
    const base = await configMap('invalid', ['k.example/base']);
    try {
      const client = counting(first.coreV1.configMaps(namespace.name));
      await expect(addFinalizerOnServer(client, base, 'not a name!')).rejects.toSatisfy(isInvalid);
      expect(client.patches).toBe(1);
      expect(client.gets).toBe(1);
    } finally {
      await release('invalid');
    }
  });

  it('gives up with ERR_RUNTIME_CONFLICT when every allowed attempt lost the race', async () => {
    const stale = await configMap('contended', ['k.example/base']);
    try {
      // Another writer changed the finalizers since `stale` was read: with one attempt allowed,
      // the guarded patch fails, the fresh read shows the change, and no attempt is left.
      await first.coreV1
        .configMaps(namespace.name)
        .patch('contended', 'merge', { metadata: { finalizers: ['k.example/other'] } });
      const client = counting(second.coreV1.configMaps(namespace.name));
      await expect(
        addFinalizerOnServer(client, stale, 'k.example/mine', { attempts: 1 }),
      ).rejects.toMatchObject({ code: 'ERR_RUNTIME_CONFLICT' });
      expect(client.patches).toBe(1);
      expect(client.gets).toBe(1);
      // With the default attempts, the same stale read succeeds after one fresh read.
      const added = await addFinalizerOnServer(client, stale, 'k.example/mine');
      expect(added.metadata?.finalizers).toEqual(['k.example/other', 'k.example/mine']);
    } finally {
      await release('contended');
    }
  });
});

describe('withFinalizer in a controller on the real server', () => {
  it('adds its finalizer beside another writer racing to add theirs, runs cleanup once on delete, and leaves theirs', async () => {
    const configMaps = first.coreV1.configMaps(namespace.name);
    const cleanups: string[] = [];
    const applies: string[][] = [];
    const stop = new AbortController();
    const controller = new ControllerBuilder('finalized-configmaps')
      .for(first.coreV1.configMaps(namespace.name), { labelSelector: { test: 'with-finalizer' } })
      .withOptions({ logger: SILENT_LOGGER })
      .complete(
        withFinalizer('example.com/cleanup', {
          apply: (object) => void applies.push([...(object.metadata?.finalizers ?? [])]),
          cleanup: (object) => void cleanups.push(object.metadata?.name ?? ''),
        }),
      );
    const running = controller.start(stop.signal);
    try {
      await configMaps.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'raced', labels: { test: 'with-finalizer' } },
      });
      // The other writer adds its finalizer from its own client while the controller adds ours.
      const theirs = second.coreV1.configMaps(namespace.name);
      await addFinalizerOnServer(theirs, await theirs.get('raced'), 'other.example.com/keep');
      await eventually(async () =>
        expect(new Set((await configMaps.get('raced')).metadata?.finalizers)).toEqual(
          new Set(['example.com/cleanup', 'other.example.com/keep']),
        ),
      );
      expect(applies.length).toBeGreaterThan(0);
      expect(applies.every((finalizers) => finalizers.includes('example.com/cleanup'))).toBe(true);

      await configMaps.delete('raced');
      await eventually(async () =>
        expect((await configMaps.get('raced')).metadata?.finalizers).toEqual([
          'other.example.com/keep',
        ]),
      );
      expect(cleanups).toEqual(['raced']);
    } finally {
      stop.abort();
      await running;
      await release('raced');
    }
  });

  it('reconciles a cluster-scoped kind (Namespaces) with the object and a finalizer', async () => {
    const name = `${namespace.name}-scoped`;
    const seen: string[] = [];
    const stop = new AbortController();
    const namespaces = first.coreV1.namespaces();
    const controller = new ControllerBuilder('finalized-namespaces')
      .for(namespaces, { labelSelector: { test: namespace.name } })
      .withOptions({ logger: SILENT_LOGGER })
      .complete(
        withFinalizer('example.com/cleanup', {
          apply: (object, { request }) =>
            void seen.push(`apply ${request.namespace}|${request.name}|${object.status?.phase}`),
          cleanup: (object) => void seen.push(`cleanup ${object.metadata?.name}`),
        }),
      );
    const running = controller.start(stop.signal);
    try {
      await namespaces.create({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, labels: { test: namespace.name } },
      });
      await eventually(() => expect(seen).toContain(`apply |${name}|Active`));
      expect((await namespaces.get(name)).metadata?.finalizers).toEqual(['example.com/cleanup']);
      await namespaces.delete(name);
      await eventually(() => expect(seen).toContain(`cleanup ${name}`));
      // The metadata finalizer is gone; the namespace controller finishes the deletion.
      await eventually(async () => {
        const left = await ignoreNotFound(namespaces.get(name));
        expect(left?.metadata?.finalizers ?? []).toEqual([]);
      });
    } finally {
      stop.abort();
      await running;
    }
  });
});
