import { setTimeout as sleep } from 'node:timers/promises';
import type { Clientset } from '@k/clientset';
import { isNotFound } from '@k/rest';
import { resolveCacheRoot } from '@k/testenv';
import { controlPlane } from '@k/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectEnvironment,
  EnvtestError,
  startEnvironment,
  type Environment,
  type EnvironmentOptions,
  type OwnedEnvironment,
} from '../src/index.js';
import { CLEANUP_USER_AGENT, TEST_NAMESPACE_LABEL } from '../src/namespaces.js';

// This repository's cache is the engine's (K_TESTENV_CACHE or ~/.cache/k-testenv).
const APISERVER_ONLY: EnvironmentOptions = {
  binaries: 'cache',
  cacheRoot: resolveCacheRoot(),
  nodes: 0,
  controllerManager: false,
  scheduler: false,
};

const HOLD = 'example.com/hold';

/** holdingConfigMap creates a ConfigMap that only goes once its finalizer is removed. */
async function holdingConfigMap(clientset: Clientset, namespace: string, name: string) {
  await clientset.coreV1.configMaps(namespace).create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, finalizers: [HOLD] },
  });
  return () =>
    clientset.coreV1.configMaps(namespace).patch(name, 'merge', { metadata: { finalizers: null } });
}

async function gone(clientset: Clientset, namespace: string): Promise<boolean> {
  return clientset.coreV1
    .namespaces()
    .get(namespace)
    .then(
      () => false,
      (error: unknown) => isNotFound(error),
    );
}

describe('on the shared plane (kube-controller-manager runs)', () => {
  let env: Environment;
  let admin: Clientset;
  beforeAll(async () => {
    env = connectEnvironment(controlPlane().kubeconfigPath);
    admin = await env.admin.clientset();
  });
  afterAll(() => env.close());

  it('creates a labelled namespace whose default ServiceAccount is there', async () => {
    const namespace = await env.createTestNamespace({ prefix: 'ns-create', labels: { team: 'a' } });
    expect(namespace.name).toMatch(/^ns-create-[0-9a-f]{8}$/);
    const object = await admin.coreV1.namespaces().get(namespace.name);
    expect(object.metadata?.labels).toMatchObject({ [TEST_NAMESPACE_LABEL]: 'true', team: 'a' });
    await admin.coreV1.serviceAccounts(namespace.name).get('default');
    await namespace.delete({ wait: false });
  });

  it('delete({ wait }) resolves only once the namespace is gone', async () => {
    const namespace = await env.createTestNamespace({ prefix: 'ns-wait' });
    await admin.coreV1.configMaps(namespace.name).create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'content' },
    });
    const mark = await env.audit.mark();
    await namespace.delete();
    expect(await gone(admin, namespace.name)).toBe(true);
    // envtest finalized it, not kube-controller-manager's namespace controller: that one waits
    // 5 s before it even starts.
    const finalized = await env.audit.waitFor(
      {
        since: mark,
        resource: 'namespaces',
        subresource: 'finalize',
        name: namespace.name,
        code: 200,
      },
      1,
    );
    expect(finalized.map((record) => record.userAgent)).toEqual([CLEANUP_USER_AGENT]);
    // Again: nothing left to do.
    await namespace.delete();
  });

  it('await using deletes the namespace and waits', async () => {
    let name: string;
    {
      await using namespace = await env.createTestNamespace({ prefix: 'ns-using' });
      name = namespace.name;
      expect(await gone(admin, name)).toBe(false);
    }
    expect(await gone(admin, name)).toBe(true);
  });

  it('names what holds a stuck namespace, with its finalizers and the namespace conditions', async () => {
    const namespace = await env.createTestNamespace({ prefix: 'ns-stuck' });
    const release = await holdingConfigMap(admin, namespace.name, 'held');
    // kube-controller-manager's namespace controller gets to the ConfigMap and sets the
    // namespace's conditions in its own time; the report is checked once it has.
    await namespace.delete({ wait: false });
    const deadline = Date.now() + 60_000;
    while (
      !(await admin.coreV1.namespaces().get(namespace.name)).status?.conditions?.some(
        (condition) =>
          condition.type === 'NamespaceFinalizersRemaining' && condition.status === 'True',
      )
    ) {
      expect(Date.now()).toBeLessThan(deadline);
      await sleep(100);
    }
    const error = await namespace.delete({ timeoutMs: 1000 }).catch((caught: unknown) => caught);
    expect(EnvtestError.isInstance(error) && error.code).toBe('ERR_ENVTEST_NAMESPACE_STUCK');
    const message = (error as Error).message;
    expect(message).toContain(
      `namespace ${namespace.name} was still there after 1000 ms of waiting`,
    );
    expect(message).toMatch(
      /configmaps\/held \(deletionTimestamp \d{4}-\d\d-\d\dT[^;]+; finalizers example\.com\/hold\)/,
    );
    expect(message).toContain('NamespaceContentRemaining=True');
    expect(message).toContain(
      'NamespaceFinalizersRemaining=True (SomeFinalizersRemain): Some content in the namespace has finalizers remaining: example.com/hold',
    );
    expect(message).toContain(`is the controller that owns finalizer ${HOLD} still running?`);
    await release();
    await namespace.delete();
    expect(await gone(admin, namespace.name)).toBe(true);
  });
});

describe('on a plane without kube-controller-manager', () => {
  let env: OwnedEnvironment;
  let admin: Clientset;
  beforeAll(async () => {
    env = await startEnvironment(APISERVER_ONLY);
    admin = await env.admin.clientset();
  });
  afterAll(() => env?.stop());

  it('does not wait for a default ServiceAccount nobody makes', async () => {
    expect(env.components).not.toContain('kube-controller-manager');
    const namespace = await env.createTestNamespace({ prefix: 'no-kcm' });
    const error = await admin.coreV1
      .serviceAccounts(namespace.name)
      .get('default')
      .catch((caught: unknown) => caught);
    expect(isNotFound(error)).toBe(true);
    await namespace.delete();
  });

  it('empties and finalizes the namespace itself, custom resources included', async () => {
    await admin.applyManifests(WIDGET_CRD, { fieldManager: 'namespaces-e2e' });
    const namespace = await env.createTestNamespace({ prefix: 'no-kcm' });
    const configMaps = admin.coreV1.configMaps(namespace.name);
    await Promise.all(
      ['a', 'b', 'c'].map((name) =>
        configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }),
      ),
    );
    await admin.coreV1.secrets(namespace.name).create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      stringData: { k: 'v' },
    });
    await admin.coreV1.serviceAccounts(namespace.name).create({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'operator' },
    });
    await admin.applyManifests(
      'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec: {}\n',
      { fieldManager: 'namespaces-e2e', namespace: namespace.name },
    );
    await namespace.delete({ timeoutMs: 20_000 });
    expect(await gone(admin, namespace.name)).toBe(true);
  });

  it('reports a stuck finalizer the same way, and finishes once it is removed', async () => {
    const namespace = await env.createTestNamespace({ prefix: 'no-kcm-stuck' });
    const release = await holdingConfigMap(admin, namespace.name, 'held');
    await admin.coreV1.configMaps(namespace.name).create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'free' },
    });
    const error = await namespace.delete({ timeoutMs: 2000 }).catch((caught: unknown) => caught);
    expect(EnvtestError.isInstance(error) && error.code).toBe('ERR_ENVTEST_NAMESPACE_STUCK');
    const message = (error as Error).message;
    expect(message).toMatch(
      /configmaps\/held \(deletionTimestamp [^;]+; finalizers example\.com\/hold\)/,
    );
    // What had no finalizer went; only the held object is named.
    expect(message).not.toContain('configmaps/free');
    expect(message).toContain('kube-controller-manager does not run here');
    expect(message).toContain(`is the controller that owns finalizer ${HOLD} still running?`);
    await release();
    await namespace.delete({ timeoutMs: 10_000 });
    expect(await gone(admin, namespace.name)).toBe(true);
  });

  it('gives users and ServiceAccount users there too', async () => {
    const namespace = await env.createTestNamespace({ prefix: 'no-kcm-users' });
    const viewer = await env.user({ clusterRole: 'view', namespace: namespace.name });
    await (await viewer.clientset()).coreV1.configMaps(namespace.name).list();
    const account = await env.serviceAccountUser({ namespace: namespace.name, name: 'operator' });
    const review = await (
      await account.clientset()
    ).authenticationV1
      .selfSubjectReviews()
      .create({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    expect(review.status?.userInfo?.username).toBe(
      `system:serviceaccount:${namespace.name}:operator`,
    );
    await namespace.delete();
  });
});

const WIDGET_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: { plural: widgets, singular: widget, kind: Widget }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, x-kubernetes-preserve-unknown-fields: true }
`;
