import { readFile } from 'node:fs/promises';
import { useTestNamespace } from '@k/testenv/vitest';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AppliedManifest, Clientset, KubernetesObject } from '../src/index.js';
import { PROTOBUF_ACCEPT, readsProtobuf } from '../src/resource/protobuf-reads.js';
import { apiVersionOf, type ResourceDescriptor } from '../src/resource/resource-descriptor.js';
import { clientsetFor, eventually, firstEvents } from './helpers.js';

// Typed reads of built-in kinds ask for protobuf, as client-go's do. Every answer is held to the
// JSON answer of the same request at the same resourceVersion: every built-in kind the server
// lists (its own objects and the fixture's, which use every special encoding), gets and watches.

const JSON_ACCEPT = 'application/json';
const FIXTURE = new URL('./fixtures/protobuf-objects.yaml', import.meta.url);

describe('typed reads as protobuf on the real server', () => {
  const namespace = useTestNamespace();
  const suffix = `${process.pid}-${Date.now()}`;
  let cs: Clientset;
  let applied: AppliedManifest[];
  let before: string;

  beforeAll(async () => {
    cs = await clientsetFor();
  });

  afterAll(async () => {
    await cs.close();
  });

  // Each test has its namespace (useTestNamespace) and applies the fixture into it.
  beforeEach(async () => {
    const manifests = (await readFile(FIXTURE, 'utf8'))
      .replaceAll('SUFFIX', suffix)
      .replaceAll('NAMESPACE', namespace.name);
    before = (await cs.coreV1.configMaps(namespace.name).list()).metadata!.resourceVersion!;
    applied = await cs.applyManifests(manifests, {
      fieldManager: 'protobuf-e2e',
      namespace: namespace.name,
      force: true,
    });
  });

  afterEach(async () => {
    await Promise.allSettled([
      cs.schedulingV1.priorityClasses().delete(`protobuf-${suffix}`),
      cs.storageV1.storageClasses().delete(`protobuf-${suffix}`),
      cs.admissionregistrationV1.validatingWebhookConfigurations().delete(`protobuf-${suffix}`),
    ]);
  });

  const asJson = (descriptor: ResourceDescriptor, namespaceName?: string) => {
    const builder = cs.rest.get().groupVersion(apiVersionOf(descriptor));
    if (namespaceName !== undefined) builder.namespace(namespaceName);
    return builder.resource(descriptor.plural).accept(JSON_ACCEPT);
  };

  it('lists every built-in kind as the JSON answer has it', async () => {
    // Wait for the controllers' objects too: ReplicaSets, the Deployment's Pods scheduled on
    // kwok's nodes with their status (conditions with `lastProbeTime: null`, IPs, start times).
    await eventually(async () => {
      const pods = await cs.coreV1.pods(namespace.name).list({ labelSelector: 'app=web' });
      expect(pods.items.filter((pod) => pod.status?.phase === 'Running')).toHaveLength(2);
    });
    const { resources } = await cs.discovery.serverResources();
    const listed = resources.filter(
      (resource) => resource.verbs?.includes('list') && readsProtobuf(resource),
    );
    expect(listed.length).toBeGreaterThan(40);
    const kinds: string[] = [];
    for (const resource of listed) {
      const client = cs.dynamic.resource(resource, resource.namespaced ? '' : undefined);
      const list = await client.list();
      const revision = list.metadata?.resourceVersion;
      const where = `${apiVersionOf(resource)} ${resource.plural}`;
      if (!revision) {
        // Not stored objects (componentstatuses): computed for each request, in no fixed order,
        // so the two reads cannot be pinned to one state; their names must match.
        const json = await asJson(resource).execute<{ items: KubernetesObject[] }>();
        const names = (items: readonly KubernetesObject[]) =>
          items.map((item) => item.metadata?.name).sort();
        expect(names(list.items), where).toEqual(names(json.items));
        continue;
      }
      const atList = { resourceVersion: revision, resourceVersionMatch: 'Exact' };
      const json = await asJson(resource).params(atList).execute<{ items: unknown[] }>();
      expect(list, where).toEqual(json);
      if (list.items.length > 0) kinds.push(`${apiVersionOf(resource)} ${resource.kind}`);
    }
    // The fixture's kinds were among them, each with objects.
    for (const kind of [
      'v1 Pod',
      'v1 Secret',
      'v1 Service',
      'apps/v1 ControllerRevision',
      'apps/v1 ReplicaSet',
      'coordination.k8s.io/v1 Lease',
      'events.k8s.io/v1 Event',
      'autoscaling/v2 HorizontalPodAutoscaler',
      'networking.k8s.io/v1 Ingress',
      'admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration',
      'v1 Node',
    ]) {
      expect(kinds).toContain(kind);
    }
  });

  it('gets each fixture object as the JSON answer has it, and the server answers protobuf', async () => {
    expect(applied.length).toBeGreaterThanOrEqual(20);
    for (const { object, resource } of applied) {
      const client = cs.dynamic.resource(
        resource,
        resource.namespaced ? namespace.name : undefined,
      );
      const name = object.metadata!.name!;
      // The same revision from both reads: a controller may write in between (then read again).
      let got: KubernetesObject | undefined;
      let json: KubernetesObject | undefined;
      for (let attempt = 0; attempt < 5; attempt += 1) {
        got = await client.get(name);
        json = await asJson(resource, client.namespace).name(name).execute<KubernetesObject>();
        if (json.metadata?.resourceVersion === got.metadata?.resourceVersion) break;
      }
      expect(got, `${object.kind} ${name}`).toEqual(json);
    }
    const response = await cs.rest
      .get()
      .namespace(namespace.name)
      .resource('pods')
      .name('rich')
      .accept(PROTOBUF_ACCEPT)
      .executeResponse<KubernetesObject>();
    expect(response.headers['content-type']).toBe('application/vnd.kubernetes.protobuf');
    expect(response.object).toEqual(await cs.coreV1.pods(namespace.name).get('rich'));
  });

  it('watches as protobuf frames to the same events as JSON lines', async () => {
    const options = { resourceVersion: before, timeoutSeconds: 10 };
    for (const client of [
      cs.coreV1.configMaps(namespace.name),
      cs.coreV1.secrets(namespace.name),
      cs.coordinationV1.leases(namespace.name),
    ] as const) {
      const descriptor = client.descriptor;
      const overProtobuf = await firstEvents(await client.watch(options), 1);
      const overJson = await firstEvents(
        await asJson(descriptor, namespace.name).params(options).watch<unknown>(),
        1,
      );
      expect(overProtobuf).toHaveLength(1);
      expect(overProtobuf, descriptor.plural).toEqual(overJson);
    }
  });
});
