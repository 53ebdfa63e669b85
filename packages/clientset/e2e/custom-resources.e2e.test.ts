import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isNotFound } from '@k/rest';
import { useTestNamespace } from '@k/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ClientsetError,
  DiscoveryClient,
  parseManifests,
  type Clientset,
  type UnstructuredObject,
} from '../src/index.js';
import { DiskDiscoveryCache } from '../src/discovery.js';
import type { CustomResourceDefinition } from '../src/generated/apiextensions/v1/index.js';
import { createWidgetsClient, widgetsResource, type Widget } from './generated/widget-v1.js';
import { caught } from '@k/test-utils';
import { clientsetFor, eventually } from './helpers.js';

const CRD_NAME = 'widgets.k-clientset.test';
const namespace = useTestNamespace({ prefix: 'clientset-crd' });
let cs: Clientset;

async function waitEstablished(name: string): Promise<CustomResourceDefinition> {
  const crds = cs.apiextensionsV1.customResourceDefinitions();
  const initial = await crds.list({ fieldSelector: `metadata.name=${name}` });
  const established = (crd: CustomResourceDefinition) =>
    crd.status?.conditions?.some(
      (condition) => condition.type === 'Established' && condition.status === 'True',
    ) ?? false;
  const found = initial.items.find(established);
  if (found) return found;
  const watch = await crds.watch({
    fieldSelector: `metadata.name=${name}`,
    resourceVersion: initial.metadata?.resourceVersion,
    timeoutSeconds: 60,
  });
  for await (const event of watch) {
    if (event.type !== 'DELETED' && established(event.object)) {
      watch.close();
      return event.object;
    }
  }
  throw new Error(`${name} was not established in time`);
}

beforeAll(async () => {
  cs = await clientsetFor();
  const manifest = await readFile(join(import.meta.dirname, 'fixtures', 'widget-crd.yaml'), 'utf8');
  expect((await parseManifests(manifest)).map((object) => object.kind)).toEqual([
    'CustomResourceDefinition',
  ]);
  await cs.applyManifests(manifest, { fieldManager: 'clientset-e2e', force: true });
  const established = await waitEstablished(CRD_NAME);
  expect(established.spec.names.kind).toBe('Widget');
});

afterAll(async () => {
  await cs?.apiextensionsV1
    .customResourceDefinitions()
    .delete(CRD_NAME)
    .catch(() => undefined);
  await cs?.close();
});

function widget(name: string, replicas = 1): Widget {
  return {
    apiVersion: 'k-clientset.test/v1',
    kind: 'Widget',
    metadata: { name },
    spec: {
      color: 'red',
      replicas,
      port: 'http',
      parts: [{ name: 'bolt', count: 2 }],
      config: { nested: { deep: [1, 2] } },
    },
  };
}

describe('a CRD through the k-gen crd typed client', () => {
  it('creates, reads, lists, patches, applies, scales, updates status, watches and deletes widgets', async () => {
    const widgets = createWidgetsClient(cs.rest, namespace.name);
    const list = await widgets.list();
    const watch = await widgets.watch({
      resourceVersion: list.metadata?.resourceVersion,
      timeoutSeconds: 60,
    });
    const types: string[] = [];
    const watching = (async () => {
      for await (const event of watch) {
        types.push(`${event.type} ${event.object.spec?.color ?? ''}`);
        if (event.type === 'DELETED') break;
      }
    })();
    const created = await widgets.create(widget('w1'));
    expect(created.spec).toEqual(widget('w1').spec);
    expect(typeof created.metadata?.creationTimestamp).toBe('string');
    expect((await widgets.get('w1')).spec.port).toBe('http');
    expect((await widgets.listAll()).items.map((item) => item.metadata?.name)).toEqual(['w1']);

    const patched = await widgets.patch('w1', 'merge', { spec: { color: 'green' } });
    expect(patched.spec.color).toBe('green');
    const applied = await widgets.apply(
      {
        apiVersion: 'k-clientset.test/v1',
        kind: 'Widget',
        metadata: { name: 'w1' },
        spec: { color: 'blue' },
      },
      { fieldManager: 'widget-applier', force: true },
    );
    expect(applied.spec.color).toBe('blue');

    const status = await widgets.patchStatus('w1', 'merge', {
      status: { phase: 'Ready', replicas: 1 },
    });
    expect(status.status).toMatchObject({ phase: 'Ready', replicas: 1 });
    expect((await widgets.getStatus('w1')).status?.phase).toBe('Ready');
    const scale = await widgets.getScale('w1');
    expect(scale.spec?.replicas).toBe(1);
    await widgets.patchScale('w1', 'merge', { spec: { replicas: 5 } });
    expect((await widgets.get('w1')).spec.replicas).toBe(5);

    await widgets.delete('w1');
    await watching;
    expect(types).toEqual([
      'ADDED red',
      'MODIFIED green',
      'MODIFIED blue',
      'MODIFIED blue',
      'MODIFIED blue',
      'DELETED blue',
    ]);
    expect(isNotFound(await caught(widgets.get('w1')))).toBe(true);
  });

  it('validates against the CRD schema on the server (strict field validation, enum)', async () => {
    const widgets = createWidgetsClient(cs.rest, namespace.name);
    const error = await caught(
      widgets.create(
        { ...widget('bad'), spec: { ...widget('bad').spec, colour: 'x' } as never },
        { fieldValidation: 'Strict' },
      ),
    );
    expect((error as Error).message).toMatch(/unknown field "spec.colour"/);
    const wrongEnum = await caught(
      widgets.create({ ...widget('bad'), spec: { color: 'purple' as 'red' } }),
    );
    expect((wrongEnum as Error).message).toMatch(/Unsupported value: "purple"/);
  });
});

describe('a CRD through the dynamic client', () => {
  it('finds the resource by kind through discovery and handles objects as plain JSON', async () => {
    const widgets = await cs.dynamic.forKind('k-clientset.test/v1', 'Widget', namespace.name);
    expect(widgets.descriptor).toMatchObject({
      plural: 'widgets',
      namespaced: true,
      shortNames: ['wd'],
    });
    const created = await widgets.create({
      apiVersion: 'k-clientset.test/v1',
      kind: 'Widget',
      metadata: { name: 'dyn' },
      spec: { color: 'green' },
    });
    expect((created.spec as { color: string }).color).toBe('green');
    const byName = cs.dynamic.resource(
      { group: 'k-clientset.test', version: 'v1', resource: 'widgets' },
      namespace.name,
    );
    expect(((await byName.get('dyn')).spec as { color: string }).color).toBe('green');
    const patched = await byName.patch('dyn', 'json', [
      { op: 'replace', path: '/spec/color', value: 'blue' },
    ]);
    expect((patched.spec as { color: string }).color).toBe('blue');
    expect((await byName.list()).items).toHaveLength(1);
    // The same object through the typed client: one store, two views.
    expect((await createWidgetsClient(cs.rest, namespace.name).get('dyn')).spec.color).toBe('blue');
    await byName.delete('dyn');
    expect(isNotFound(await caught(byName.get('dyn')))).toBe(true);
    // The k-gen descriptor and discovery agree.
    const discovered = (await cs.discovery.resourcesFor('k-clientset.test', 'v1'))[0];
    expect(discovered).toMatchObject({
      kind: widgetsResource.kind,
      plural: widgetsResource.plural,
      singular: widgetsResource.singular,
      namespaced: widgetsResource.namespaced,
      verbs: widgetsResource.verbs,
      subresources: widgetsResource.subresources,
    });
  });

  it('applyManifests applies multi-document YAML like kubectl apply --server-side', async () => {
    const text = `
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: fast
---
apiVersion: k-clientset.test/v1
kind: Widget
metadata:
  name: from-yaml
spec:
  color: red
  port: 8080
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ${namespace.name}-reader
rules:
  - apiGroups: ['k-clientset.test']
    resources: [widgets]
    verbs: [get, list]
`;
    const applied = await cs.applyManifests(text, {
      fieldManager: 'manifests',
      namespace: namespace.name,
    });
    expect(
      applied.map(
        ({ resource, object }) =>
          `${resource.plural}/${object.metadata?.name}/${object.metadata?.namespace ?? '-'}`,
      ),
    ).toEqual([
      `configmaps/settings/${namespace.name}`,
      `widgets/from-yaml/${namespace.name}`,
      `clusterroles/${namespace.name}-reader/-`,
    ]);
    expect((await createWidgetsClient(cs.rest, namespace.name).get('from-yaml')).spec.port).toBe(
      8080,
    );
    // Applying again is a no-op for the same manager; another manager conflicts.
    await cs.applyManifests(text, { fieldManager: 'manifests', namespace: namespace.name });
    const conflict = await caught(
      cs.applyManifests(text.replace('mode: fast', 'mode: slow'), {
        fieldManager: 'other',
        namespace: namespace.name,
      }),
    );
    expect((conflict as { conflicts?: unknown[] }).conflicts).toHaveLength(1);
    await cs.rbacV1.clusterRoles().delete(`${namespace.name}-reader`);
    await expect(
      cs.applyManifests('apiVersion: nope.example/v1\nkind: Nope\nmetadata: {name: x}\n', {
        fieldManager: 'm',
      }),
    ).rejects.toSatisfy(
      (error) => ClientsetError.isInstance(error) && error.code === 'ERR_CLIENTSET_NO_MAPPING',
    );
  });

  it('applyManifests waits for a kind defined by a CRD in the same text', async () => {
    const group = `g${namespace.name.replace(/[^a-z0-9]/g, '')}.k-clientset.test`;
    const text = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.${group}
spec:
  group: ${group}
  scope: Namespaced
  names: { plural: gadgets, singular: gadget, kind: Gadget }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true }
---
apiVersion: ${group}/v1
kind: Gadget
metadata: { name: first }
size: 3
`;
    try {
      const applied = await cs.applyManifests(text, {
        fieldManager: 'manifests',
        namespace: namespace.name,
      });
      expect(applied.map(({ object }) => object.kind)).toEqual([
        'CustomResourceDefinition',
        'Gadget',
      ]);
      expect((applied[1]?.object as UnstructuredObject).size).toBe(3);
    } finally {
      await cs.apiextensionsV1
        .customResourceDefinitions()
        .delete(`gadgets.${group}`)
        .catch(() => undefined);
    }
  });
});

describe('discovery against the real server', () => {
  it('uses aggregated discovery, finds the CRD after it appears, and caches on disk', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'k-discovery-e2e-'));
    try {
      const first = new DiscoveryClient(cs.rest, { cache: new DiskDiscoveryCache({ directory }) });
      const resources = await first.serverResources();
      expect(resources.aggregated).toBe(true);
      expect(resources.resources.some((resource) => resource.group === 'k-clientset.test')).toBe(
        true,
      );
      expect(
        resources.resources.find((resource) => resource.plural === 'deployments')?.subresources
          ?.scale,
      ).toEqual(['get', 'patch', 'update']);
      const version = await first.serverVersion();
      expect(version.gitVersion).toMatch(/^v1\.\d+\.\d+/);
      const second = new DiscoveryClient(cs.rest, { cache: new DiskDiscoveryCache({ directory }) });
      expect((await second.serverResources()).resources.length).toBe(resources.resources.length);
      expect((await cs.mapper.kindFor('wd')).kind).toBe('Widget');
      expect((await cs.mapper.kindFor('deploy')).group).toBe('apps');
      await eventually(async () =>
        expect(
          (await cs.mapper.mappingFor('autoscaling/v2', 'HorizontalPodAutoscaler')).plural,
        ).toBe('horizontalpodautoscalers'),
      );
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
