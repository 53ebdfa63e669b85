import type { Clientset } from '@k/clientset';
import type { ConfigMap } from '@k/clientset/core/v1';
import { useTestNamespace } from '@k/envtest/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Informer, objectKey } from '../src/informer.js';
import { clientsetFor, eventually, inParallel } from './helpers.js';

// Handlers on a real informer: a resync period re-delivers the cache as updates of an object to
// itself, and a handler added after the sync first hears every cached object as an initial add.
const namespace = useTestNamespace({ prefix: 'runtime-handlers' });
const LABELS = { test: 'handlers' };
let cs: Clientset;

beforeAll(async () => {
  cs = await clientsetFor();
});

afterAll(async () => {
  await cs?.close();
});

async function syncedInformer(count: number): Promise<Informer<ConfigMap>> {
  const configMaps = cs.coreV1.configMaps(namespace.name);
  await inParallel(
    Array.from({ length: count }, (_, index) => `cm-${index}`),
    5,
    (name) =>
      configMaps.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, labels: LABELS },
      }),
  );
  const informer = new Informer<ConfigMap>(configMaps, { labelSelector: LABELS });
  informer.start();
  await informer.waitForSync(AbortSignal.timeout(30_000));
  return informer;
}

describe('informer handlers', () => {
  it('resync re-delivers every cached object as an update to itself, per handler period, until removed', async () => {
    const informer = await syncedInformer(5);
    try {
      const resyncs = new Map<string, number>();
      let sameObject = true;
      const registration = informer.addEventHandler(
        {
          onUpdate: (oldObject, newObject) => {
            if (oldObject !== newObject) sameObject = false;
            const key = objectKey(newObject);
            resyncs.set(key, (resyncs.get(key) ?? 0) + 1);
          },
        },
        { resyncPeriodMs: 1_000 },
      );
      let withoutResync = 0;
      informer.addEventHandler({ onUpdate: () => void (withoutResync += 1) });
      await eventually(() => {
        expect(resyncs.size).toBe(5);
        for (const count of resyncs.values()) expect(count).toBeGreaterThanOrEqual(2);
      }, 10_000);
      expect(sameObject).toBe(true);
      expect(withoutResync).toBe(0); // a handler without a period hears no resyncs
      registration.remove();
      const total = [...resyncs.values()].reduce((sum, count) => sum + count, 0);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect([...resyncs.values()].reduce((sum, count) => sum + count, 0)).toBe(total);
    } finally {
      await informer.stop();
    }
  });

  it('a handler added after the sync hears the cache as initial adds, then live changes', async () => {
    const informer = await syncedInformer(8);
    try {
      const adds: { name: string; initial: boolean }[] = [];
      const registration = informer.addEventHandler({
        onAdd: (object, initial) => adds.push({ name: object.metadata!.name!, initial }),
      });
      expect(registration.hasSynced).toBe(true);
      expect(adds).toHaveLength(8); // replayed at once, synchronously
      expect(adds.every((add) => add.initial)).toBe(true);
      expect(adds.map((add) => add.name).sort()).toEqual(
        Array.from({ length: 8 }, (_, index) => `cm-${index}`).sort(),
      );
      await cs.coreV1.configMaps(namespace.name).create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'late', labels: LABELS },
      });
      await eventually(() => expect(adds.at(-1)).toEqual({ name: 'late', initial: false }));
      expect(adds).toHaveLength(9);
    } finally {
      await informer.stop();
    }
  });
});
