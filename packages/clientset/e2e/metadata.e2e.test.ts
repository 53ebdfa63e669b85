import { useTestNamespace } from '@k/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clientset } from '../src/index.js';
import { clientsetFor } from './helpers.js';

// What the real API server answers a metadata client: only metadata, as meta.k8s.io/v1
// PartialObjectMetadata(List), for get, list and watch, typed and dynamic.
const namespace = useTestNamespace({ prefix: 'clientset-metadata' });
let cs: Clientset;

beforeAll(async () => {
  cs = await clientsetFor();
});

afterAll(async () => {
  await cs?.close();
});

describe('asMetadata on the real server', () => {
  it('gets, lists and watches only the metadata of ConfigMaps', async () => {
    const configMaps = cs.coreV1.configMaps(namespace.name);
    await configMaps.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'big', labels: { test: 'metadata' } },
      data: { payload: 'x'.repeat(10_000) },
    });
    const metadata = configMaps.asMetadata();

    const one = await metadata.get('big');
    expect(one).toMatchObject({
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadata',
      metadata: { name: 'big', namespace: namespace.name, labels: { test: 'metadata' } },
    });
    expect(one).not.toHaveProperty('data');

    const list = await metadata.list({ labelSelector: { test: 'metadata' } });
    expect(list.kind).toBe('PartialObjectMetadataList');
    expect(list.apiVersion).toBe('meta.k8s.io/v1');
    expect(list.items.map((item) => item.metadata?.name)).toEqual(['big']);
    expect(list.items[0]).not.toHaveProperty('data');

    const watch = await metadata.watch({
      labelSelector: { test: 'metadata' },
      resourceVersion: list.metadata!.resourceVersion!,
    });
    try {
      await configMaps.patch('big', 'merge', { data: { payload: 'y' } });
      for await (const event of watch) {
        expect(event.type).toBe('MODIFIED');
        expect(event.object.kind).toBe('PartialObjectMetadata');
        expect(event.object.metadata?.name).toBe('big');
        expect(event.object).not.toHaveProperty('data');
        break;
      }
    } finally {
      watch.close();
    }
  });

  it('works with the dynamic client', async () => {
    await cs.coreV1.configMaps(namespace.name).create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'dynamic' },
      data: { a: 'b' },
    });
    const list = await cs.dynamic
      .resource({ group: '', version: 'v1', resource: 'configmaps' }, namespace.name)
      .asMetadata()
      .list({ fieldSelector: 'metadata.name=dynamic' });
    expect(list.kind).toBe('PartialObjectMetadataList');
    expect(list.items).toHaveLength(1);
    expect(list.items[0]).toMatchObject({
      kind: 'PartialObjectMetadata',
      metadata: { name: 'dynamic' },
    });
    expect(list.items[0]).not.toHaveProperty('data');
  });
});
