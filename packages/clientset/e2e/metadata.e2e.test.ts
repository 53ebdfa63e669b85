import { useTestNamespace } from '@k/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clientset, PartialObjectMetadata, PartialObjectMetadataList } from '../src/index.js';
import { METADATA_LIST_ACCEPT } from '../src/resource/metadata-client.js';
import { clientsetFor, firstEvents } from './helpers.js';

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

  // A metadata client asks for protobuf first, as client-go's does. Every answer is held to the
  // JSON answer for the same request: same objects, same fields, nothing left out or added.
  it('decodes protobuf answers to exactly what the JSON answers hold', async () => {
    const ns = namespace.name;
    const configMaps = cs.coreV1.configMaps(ns);
    const owner = await configMaps.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'owner' },
    });
    const before = (await configMaps.list()).metadata!.resourceVersion!;
    await configMaps.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'rich',
        labels: { app: 'web', 'example.com/tier': 'front' },
        annotations: { note: 'ünïcode ✓', empty: '' },
        finalizers: ['example.com/hold'],
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: 'owner',
            uid: owner.metadata!.uid!,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      data: { a: 'b' },
    });
    await configMaps.apply(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'rich' }, data: { c: 'd' } },
      { fieldManager: 'second-manager' },
    );
    await configMaps.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { generateName: 'generated-' },
    });
    await configMaps.delete('rich'); // held by its finalizer: deletionTimestamp, grace period 0
    const services = cs.coreV1.services(ns);
    await services.create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'with-status' },
      spec: { type: 'LoadBalancer', ports: [{ port: 80 }] },
    });
    await services.patchStatus('with-status', 'merge', {
      status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } },
    }); // a managedFields entry with subresource "status"
    try {
      const jsonAccept = (as: string) => `application/json;as=${as};g=meta.k8s.io;v=v1`;
      const asJson = (resource: string) => cs.rest.get().namespace(ns).resource(resource);
      for (const resource of ['configmaps', 'services']) {
        const metadata =
          resource === 'configmaps' ? configMaps.asMetadata() : services.asMetadata();
        // The whole list, and one page of it (continue token, remainingItemCount). Other test
        // files write to the server meanwhile, so every read is pinned to the list's revision.
        const list = await metadata.list();
        const atList = {
          resourceVersion: list.metadata!.resourceVersion!,
          resourceVersionMatch: 'Exact',
        } as const;
        expect(list).toEqual(
          await asJson(resource)
            .params(atList)
            .accept(jsonAccept('PartialObjectMetadataList'))
            .execute(),
        );
        const page = await metadata.list({ limit: 1, ...atList });
        if (resource === 'configmaps') {
          expect(page.metadata?.continue).toMatch(/.+/);
          expect(page.metadata?.remainingItemCount).toBe(3);
        }
        expect(page).toEqual(
          await asJson(resource)
            .params({ limit: 1, ...atList })
            .accept(jsonAccept('PartialObjectMetadataList'))
            .execute(),
        );
        for (const item of list.items) {
          const name = item.metadata!.name!;
          expect(await metadata.get(name)).toEqual(
            await asJson(resource).name(name).accept(jsonAccept('PartialObjectMetadata')).execute(),
          );
        }
      }
      // What the metadata client's Accept gets from the server: protobuf, not JSON.
      const negotiated = await cs.rest
        .get()
        .namespace(ns)
        .resource('configmaps')
        .accept(METADATA_LIST_ACCEPT)
        .executeResponse();
      expect(negotiated.headers['content-type']).toBe('application/vnd.kubernetes.protobuf');
      const negotiatedVersion = (negotiated.object as PartialObjectMetadataList).metadata!
        .resourceVersion!;
      expect(negotiated.object).toEqual(
        await configMaps
          .asMetadata()
          .list({ resourceVersion: negotiatedVersion, resourceVersionMatch: 'Exact' }),
      );

      const none = await configMaps.asMetadata().list({ labelSelector: { matches: 'nothing' } });
      expect(none.items).toEqual([]); // JSON would say null here (a nil Go slice)

      const rich = await configMaps.asMetadata().get('rich');
      expect(rich.metadata).toMatchObject({
        deletionGracePeriodSeconds: 0,
        finalizers: ['example.com/hold'],
        ownerReferences: [{ name: 'owner', controller: true, blockOwnerDeletion: true }],
      });
      expect(rich.metadata?.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(rich.metadata?.managedFields?.map((entry) => entry.manager)).toContain(
        'second-manager',
      );
      const status = await services.asMetadata().get('with-status');
      expect(status.metadata?.managedFields?.map((entry) => entry.subresource)).toContain('status');

      // Watches from the same resourceVersion, protobuf frames and JSON lines: the same events.
      const overProtobuf = await firstEvents(
        await configMaps.asMetadata().watch({ resourceVersion: before, timeoutSeconds: 10 }),
        4,
      );
      const overJson = await firstEvents(
        await asJson('configmaps')
          .params({ resourceVersion: before, timeoutSeconds: 10 })
          .accept(jsonAccept('PartialObjectMetadata'))
          .watch<PartialObjectMetadata>(),
        4,
      );
      expect(overProtobuf.map((event) => (event as { type: string }).type)).toEqual([
        'ADDED', // rich
        'MODIFIED', // applied by second-manager
        'ADDED', // generated-…
        'MODIFIED', // deleted, held by its finalizer
      ]);
      expect(overProtobuf).toEqual(overJson);
    } finally {
      await configMaps.patch('rich', 'merge', { metadata: { finalizers: null } });
    }
  });
});
