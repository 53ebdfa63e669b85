import type { Clientset } from '@k/clientset';
import type { ConfigMap } from '@k/clientset/core/v1';
import { useTestNamespace } from '@k/envtest/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControllerBuilder, type ReconcileContext } from '../src/index.js';
import { requestKey } from '../src/controller/request.js';
import { InformerFactory } from '../src/informer.js';
import { clientsetFor, eventually } from './helpers.js';

const namespace = useTestNamespace({ prefix: 'runtime-controller' });
let cs: Clientset;

beforeAll(async () => {
  cs = await clientsetFor();
});

afterAll(async () => {
  await cs?.close();
});

describe('a controller built with for().owns() on the real server', () => {
  it('reconciles sources into owned copies, repairs a deleted copy, retries errors, never runs one key twice at once', async () => {
    const configMaps = cs.coreV1.configMaps(namespace.name);
    const factory = new InformerFactory();
    const sources = factory.informerFor(configMaps, { labelSelector: { role: 'source' } });
    const copies = factory.informerFor(configMaps, { labelSelector: { role: 'copy' } });
    // The same source and selection share one informer.
    expect(factory.informerFor(configMaps, { labelSelector: 'role=source' })).toBe(sources);
    expect(factory.informers).toHaveLength(2);

    const inFlight = new Set<string>();
    let overlaps = 0;
    const attempts = new Map<string, number>();
    const reconcile = async (
      source: ConfigMap,
      { request }: ReconcileContext<ConfigMap, unknown>,
    ): Promise<void> => {
      const key = requestKey(request);
      if (inFlight.has(key)) overlaps += 1;
      inFlight.add(key);
      try {
        const attempt = (attempts.get(key) ?? 0) + 1;
        attempts.set(key, attempt);
        // The first reconcile of "flaky" fails: the controller must retry it, and go on.
        if (request.name === 'flaky' && attempt === 1) throw new Error('first attempt fails');
        await new Promise((resolve) => setTimeout(resolve, 20));
        await configMaps.apply(
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: {
              name: `${request.name}-copy`,
              labels: { role: 'copy' },
              ownerReferences: [
                {
                  apiVersion: 'v1',
                  kind: 'ConfigMap',
                  name: request.name,
                  uid: source.metadata!.uid!,
                  controller: true,
                },
              ],
            },
            data: source.data ?? {},
          },
          { fieldManager: 'copier', force: true },
        );
      } finally {
        inFlight.delete(key);
      }
    };
    const controller = new ControllerBuilder('copier')
      .for(sources)
      .owns(copies)
      .withOptions({ maxConcurrentReconciles: 3 })
      .complete(reconcile);

    const stop = new AbortController();
    const running = controller.start(stop.signal);
    factory.start(stop.signal);
    try {
      for (const name of ['a', 'b', 'flaky']) {
        await configMaps.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, labels: { role: 'source' } },
          data: { value: name },
        });
      }
      const copyOf = (name: string): ConfigMap | undefined =>
        copies.lister.getByName(`${name}-copy`, namespace.name);
      await eventually(() => {
        for (const name of ['a', 'b', 'flaky']) expect(copyOf(name)?.data).toEqual({ value: name });
      });
      expect(attempts.get(`${namespace.name}/flaky`)).toBeGreaterThanOrEqual(2);

      // A change of the source is reconciled into its copy.
      for (let round = 0; round < 5; round += 1) {
        await configMaps.patch('a', 'merge', { data: { value: `a${round}` } });
      }
      await eventually(() => expect(copyOf('a')?.data).toEqual({ value: 'a4' }));

      // Deleting an owned copy enqueues its owner, which recreates it.
      await configMaps.delete('b-copy');
      await eventually(async () =>
        expect((await configMaps.get('b-copy')).data).toEqual({ value: 'b' }),
      );
      expect(overlaps).toBe(0);
      expect(controller.synced).toBe(true);
    } finally {
      stop.abort();
      await running;
      await factory.stop();
    }
    expect(controller.queue.shuttingDown).toBe(true);
  });
});
