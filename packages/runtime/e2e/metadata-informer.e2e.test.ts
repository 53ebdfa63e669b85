import type { Clientset, PartialObjectMetadata } from '@k/clientset';
import { useTestNamespace } from '@k/envtest/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Informer, InformerFactory, objectKey } from '../src/informer.js';
import { clientsetFor, eventually, inParallel } from './helpers.js';

// A metadata-only informer on the real server: it caches PartialObjectMetadata (no data), by
// streaming list and by paged LIST, and follows changes and deletes.
const namespace = useTestNamespace({ prefix: 'runtime-metadata' });
let cs: Clientset;

beforeAll(async () => {
  cs = await clientsetFor();
});

afterAll(async () => {
  await cs?.close();
});

const LABELS = { test: 'metadata-informer' };

describe.each([
  ['streaming list', true],
  ['paged LIST', false],
])('a metadata informer (%s)', (_how, watchList) => {
  it('caches only metadata and follows updates and deletes', async () => {
    const configMaps = cs.coreV1.configMaps(namespace.name);
    const names = Array.from({ length: 120 }, (_, index) => `cm-${index}`);
    await inParallel(names, 8, (name) =>
      configMaps.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, labels: LABELS },
        data: { payload: 'x'.repeat(2_000) },
      }),
    );
    const informer = new Informer<PartialObjectMetadata>(configMaps.asMetadata(), {
      labelSelector: LABELS,
      watchList,
      pageSize: 50,
    });
    const updated = new Map<string, PartialObjectMetadata>();
    const deleted: string[] = [];
    informer.addEventHandler({
      onUpdate: (_old, object) => updated.set(objectKey(object), object),
      onDelete: (object) => deleted.push(objectKey(object as PartialObjectMetadata)),
    });
    informer.start();
    try {
      await informer.waitForSync(AbortSignal.timeout(30_000));
      expect(informer.resource).toBe(`configmaps (metadata) in namespace ${namespace.name}`);
      // A paged LIST at resourceVersion "0" comes from the watch cache, which may trail the
      // last creates by a moment (client-go's reflector lists the same way); the watch catches up.
      await eventually(() => expect(informer.lister.list()).toHaveLength(120));
      const cached = informer.lister.list();
      for (const object of cached) {
        expect(object.kind).toBe('PartialObjectMetadata');
        expect(object).not.toHaveProperty('data');
        expect(object.metadata?.managedFields).toBeUndefined();
      }

      await configMaps.patch('cm-7', 'merge', { metadata: { labels: { color: 'blue' } } });
      await configMaps.delete('cm-8');
      await eventually(() => {
        expect(updated.get(`${namespace.name}/cm-7`)?.metadata?.labels?.color).toBe('blue');
        expect(deleted).toEqual([`${namespace.name}/cm-8`]);
      });
      expect(informer.lister.get(`${namespace.name}/cm-7`)?.metadata?.labels?.color).toBe('blue');
      expect(informer.lister.list()).toHaveLength(119);
      expect(informer.health()).toMatchObject({ ready: true, failures: 0 });
    } finally {
      await informer.stop();
    }
  });
});

it('a factory keeps the metadata informer of a client apart from its full informer', () => {
  const factory = new InformerFactory();
  const configMaps = cs.coreV1.configMaps(namespace.name);
  const full = factory.informerFor(configMaps);
  const metadata = factory.informerFor(configMaps.asMetadata());
  expect(metadata).not.toBe(full);
  expect(factory.informerFor(configMaps.asMetadata())).toBe(metadata);
  expect(factory.informerFor(configMaps)).toBe(full);
});
