import {
  isConflict,
  isInvalid,
  isNotFound,
  type ApiError,
  type Clientset,
  type KubernetesObject,
} from '@k/clientset';
import { environment, useTestNamespace } from '@k/envtest/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment } from '@k/clientset/apps/v1';
import { createWebAppsClient, type WebApp } from '../src/generated/web-app-v1beta1.js';
import { FIELD_MANAGER, FINALIZER, MANAGED_BY_LABEL, registryName } from '../src/names.js';
import { sameQuantity } from '@k/runtime/writes';
import { clientsetFor, eventually, installCrd, startOperator, webApp } from './helpers.js';

const namespace = useTestNamespace({ prefix: 'demo-operator' });
let cs: Clientset;

beforeAll(async () => {
  cs = await clientsetFor();
  await installCrd(cs);
});

afterAll(async () => {
  await cs?.close();
});

/** eventsOf lists `type reason: note` of the operator's Events about the WebApp `name`, oldest first. */
async function eventsOf(name: string): Promise<string[]> {
  const events = await cs.eventsV1.events(namespace.name).list();
  return events.items
    .filter((event) => event.regarding?.kind === 'WebApp' && event.regarding.name === name)
    .filter((event) => event.reportingController === 'apps.k.example/demo-operator')
    .map((event) => `${event.type} ${event.reason}: ${event.note}`);
}

function condition(webapp: WebApp, type: string) {
  return webapp.status?.conditions?.find((candidate) => candidate.type === type);
}

describe('the WebApp operator on the real control plane', () => {
  it('turns a WebApp into a Deployment and a Service it owns; the status follows the Pods kwok runs; spec changes roll out', async () => {
    const running = await startOperator(namespace.name);
    try {
      const webapps = createWebAppsClient(cs.rest, namespace.name);
      const created = await webapps.create(
        webApp('hello', { env: [{ name: 'GREETING', value: 'hi' }] }),
      );
      const uid = created.metadata!.uid!;

      const deployment = await eventually(() => cs.appsV1.deployments(namespace.name).get('hello'));
      expect(deployment.metadata?.ownerReferences).toEqual([
        {
          apiVersion: 'apps.k.example/v1beta1',
          kind: 'WebApp',
          name: 'hello',
          uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      expect(deployment.spec.replicas).toBe(2);
      const container = deployment.spec.template.spec?.containers[0];
      expect(container).toMatchObject({
        name: 'web',
        image: 'nginx:1.27',
        env: [{ name: 'GREETING', value: 'hi' }],
      });
      expect(container?.ports).toEqual([{ name: 'http', containerPort: 8080, protocol: 'TCP' }]);
      expect(deployment.metadata?.managedFields?.map((entry) => entry.manager)).toContain(
        'demo-operator',
      );

      const service = await eventually(() => cs.coreV1.services(namespace.name).get('hello'));
      expect(service.metadata?.ownerReferences?.[0]).toMatchObject({
        kind: 'WebApp',
        uid,
        controller: true,
      });
      expect(service.spec?.selector).toEqual({
        'app.kubernetes.io/name': 'webapp',
        'app.kubernetes.io/instance': 'hello',
      });
      expect(service.spec?.ports).toMatchObject([{ name: 'http', port: 80, targetPort: 'http' }]);

      // The finalizer and the registry entry outside the WebApp's reach.
      const registry = await eventually(() =>
        cs.coreV1.configMaps(namespace.name).get(registryName(namespace.name)),
      );
      expect(registry.data).toEqual({
        [`${namespace.name}.hello`]: `http://hello.${namespace.name}.svc:80`,
      });
      expect((await webapps.get('hello')).metadata?.finalizers).toEqual([FINALIZER]);

      // kwok's nodes run the Pods: the status fills in.
      const ready = await eventually(async () => {
        const current = await webapps.get('hello');
        expect(current.status).toMatchObject({
          replicas: 2,
          readyReplicas: 2,
          observedGeneration: 1,
        });
        expect(condition(current, 'Available')).toMatchObject({
          status: 'True',
          reason: 'MinimumReplicasAvailable',
        });
        expect(condition(current, 'Progressing')).toMatchObject({
          status: 'False',
          reason: 'RolloutComplete',
        });
        expect(condition(current, 'Degraded')).toMatchObject({ status: 'False' });
        return current;
      });
      expect(condition(ready, 'Available')?.lastTransitionTime).toBeTruthy();
      await eventually(async () =>
        expect(await eventsOf('hello')).toEqual(
          expect.arrayContaining(['Normal Created: created Deployment hello and Service hello']),
        ),
      );

      // The scale subresource reads and writes spec.replicas; the operator follows.
      const scale = await webapps.getScale('hello');
      expect(scale.spec?.replicas).toBe(2);
      expect(scale.status).toMatchObject({
        replicas: 2,
        selector: 'app.kubernetes.io/name=webapp,app.kubernetes.io/instance=hello',
      });
      await webapps.patchScale('hello', 'merge', { spec: { replicas: 3 } });
      // At 3 replicas the default maxUnavailable (25%) rounds to 0, so the Deployment is not
      // Available until the third Pod is ready: wait for that before the image rollout.
      const scaled = await eventually(async () => {
        const current = await webapps.get('hello');
        expect(current.status).toMatchObject({ replicas: 3, readyReplicas: 3 });
        expect(condition(current, 'Available')).toMatchObject({ status: 'True' });
        return current;
      });
      const availableSince = condition(scaled, 'Available')!.lastTransitionTime;
      await webapps.patch('hello', 'merge', { spec: { container: { image: 'nginx:1.28' } } });
      await eventually(async () => {
        const current = await cs.appsV1.deployments(namespace.name).get('hello');
        expect(current.spec.replicas).toBe(3);
        expect(current.spec.template.spec?.containers[0]?.image).toBe('nginx:1.28');
      });
      await eventually(async () => {
        const current = await webapps.get('hello');
        expect(current.status).toMatchObject({
          replicas: 3,
          readyReplicas: 3,
          observedGeneration: 3,
        });
        expect(condition(current, 'Progressing')).toMatchObject({
          status: 'False',
          reason: 'RolloutComplete',
          observedGeneration: 3,
        });
        // Available stayed True through the image rollout (maxUnavailable 0): its transition
        // time did not move.
        expect(condition(current, 'Available')).toMatchObject({
          status: 'True',
          lastTransitionTime: availableSince,
        });
        expect(await eventsOf('hello')).toContain(
          'Normal Updated: updated Deployment hello to the spec',
        );
      });

      // A field dropped from the spec is dropped from the Deployment (the apply's hash changed).
      await webapps.patch('hello', 'json', [{ op: 'remove', path: '/spec/container/env' }]);
      await eventually(async () => {
        const current = await cs.appsV1.deployments(namespace.name).get('hello');
        expect(current.spec.template.spec?.containers[0]?.env).toBeUndefined();
      });
    } finally {
      await running.stop();
    }
  });

  it('puts back what someone else changes in the Deployment, unless the WebApp is paused', async () => {
    const running = await startOperator(namespace.name);
    try {
      const webapps = createWebAppsClient(cs.rest, namespace.name);
      const deployments = cs.appsV1.deployments(namespace.name);
      await webapps.create(webApp('drift'));
      await eventually(() => deployments.get('drift'));

      // Someone scales it and changes the image by hand (as `kubectl edit` would): both are put back.
      await deployments.patch(
        'drift',
        'strategic-merge',
        {
          spec: {
            replicas: 7,
            template: { spec: { containers: [{ name: 'web', image: 'httpd:2' }] } },
          },
        },
        { fieldManager: 'kubectl-edit' },
      );
      await eventually(async () => {
        const current = await deployments.get('drift');
        expect(current.spec.replicas).toBe(2);
        expect(current.spec.template.spec?.containers[0]?.image).toBe('nginx:1.27');
      });
      await eventually(async () =>
        expect(await eventsOf('drift')).toContain(
          'Normal DriftCorrected: put back fields of Deployment drift that were changed by someone else',
        ),
      );

      // Paused: neither drift nor spec changes are applied, and the status says so.
      await webapps.patch('drift', 'merge', { spec: { paused: true } });
      await eventually(async () => {
        expect(condition(await webapps.get('drift'), 'Progressing')).toMatchObject({
          status: 'False',
          reason: 'Paused',
        });
      });
      await deployments.patch(
        'drift',
        'merge',
        { spec: { replicas: 4 } },
        { fieldManager: 'kubectl-edit' },
      );
      await webapps.patch('drift', 'merge', { spec: { container: { image: 'nginx:1.29' } } });
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const paused = await deployments.get('drift');
      expect(paused.spec.replicas).toBe(4);
      expect(paused.spec.template.spec?.containers[0]?.image).toBe('nginx:1.27');
      // The status still follows the Deployment while paused.
      await eventually(async () => expect((await webapps.get('drift')).status?.replicas).toBe(4));

      // Unpaused: everything is put in line with the spec at once.
      await webapps.patch('drift', 'merge', { spec: { paused: false } });
      await eventually(async () => {
        const current = await deployments.get('drift');
        expect(current.spec.replicas).toBe(2);
        expect(current.spec.template.spec?.containers[0]?.image).toBe('nginx:1.29');
      });
    } finally {
      await running.stop();
    }
  });

  it('leaves a Deployment and a Service of its name that are someone else’s untouched, says so, and makes its own once they are gone', async () => {
    const running = await startOperator(namespace.name);
    try {
      const webapps = createWebAppsClient(cs.rest, namespace.name);
      const deployments = cs.appsV1.deployments(namespace.name);
      const services = cs.coreV1.services(namespace.name);
      // Another team's Deployment and Service named like the WebApp to come: no controller, one
      // of them even labelled as the operator's (so it is in its cache).
      const theirLabels = { app: 'theirs' };
      await deployments.create(
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: {
            name: 'taken',
            labels: { ...theirLabels, [MANAGED_BY_LABEL]: FIELD_MANAGER },
          },
          spec: {
            replicas: 1,
            selector: { matchLabels: theirLabels },
            template: {
              metadata: { labels: theirLabels },
              spec: { containers: [{ name: 'theirs', image: 'httpd:2' }] },
            },
          },
        },
        { fieldManager: 'another-team' },
      );
      await services.create(
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'taken', labels: theirLabels },
          spec: { selector: theirLabels, ports: [{ name: 'web', port: 8000 }] },
        },
        { fieldManager: 'another-team' },
      );
      // Who wrote what (the Deployment controller's status writes, a subresource, aside).
      const managersOf = (object: KubernetesObject) =>
        object.metadata?.managedFields
          ?.filter((entry) => !entry.subresource)
          .map((entry) => `${entry.manager} ${entry.operation}`);
      const theirs = async () => {
        const [deployment, service] = await Promise.all([
          deployments.get('taken'),
          services.get('taken'),
        ]);
        return {
          deployment: {
            uid: deployment.metadata?.uid,
            generation: deployment.metadata?.generation,
            labels: deployment.metadata?.labels,
            ownerReferences: deployment.metadata?.ownerReferences,
            managers: managersOf(deployment),
            spec: deployment.spec,
          },
          service: {
            uid: service.metadata?.uid,
            labels: service.metadata?.labels,
            ownerReferences: service.metadata?.ownerReferences,
            managers: managersOf(service),
            spec: service.spec,
          },
        };
      };
      const before = await theirs();

      await webapps.create(webApp('taken', { image: 'nginx:1.27' }));
      const conflicted = await eventually(async () => {
        const current = await webapps.get('taken');
        expect(condition(current, 'Degraded')).toMatchObject({
          status: 'True',
          reason: 'Conflict',
        });
        expect(condition(current, 'Available')).toMatchObject({
          status: 'False',
          reason: 'Conflict',
        });
        return current;
      });
      const message = condition(conflicted, 'Degraded')!.message;
      expect(message).toMatch(/Deployment taken exists and is not controlled by this WebApp/);
      expect(message).toMatch(/Service taken exists and is not controlled by this WebApp/);
      // Whoever reads the WebApp learns nothing of the other team's objects' owners.
      expect(message).not.toMatch(/uid|controlled by \w+ \w+ \(/);
      await eventually(async () =>
        expect((await eventsOf('taken')).join('\n')).toMatch(
          /^Warning Conflict: Deployment taken exists and is not controlled by this WebApp.*; Service taken exists/m,
        ),
      );
      // Looked at again (from 5 s apart) and still left alone: spec, owners, managers, labels.
      await new Promise((resolve) => setTimeout(resolve, 7000));
      expect(await theirs()).toEqual(before);
      expect(before.deployment.managers).toEqual(['another-team Update']);
      expect(before.service.managers).toEqual(['another-team Update']);
      expect(await eventsOf('taken')).toHaveLength(1); // the warning once, not at every look

      // Deleting the WebApp leaves them (no owner reference of it, so no garbage collection).
      await webapps.delete('taken');
      await eventually(async () => {
        await expect(webapps.get('taken')).rejects.toSatisfy(isNotFound);
      });
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(await theirs()).toEqual(before);

      // A WebApp of that name again; once their objects are gone, it gets its own.
      const created = await webapps.create(webApp('taken'));
      await eventually(async () =>
        expect(condition(await webapps.get('taken'), 'Degraded')).toMatchObject({
          reason: 'Conflict',
        }),
      );
      await deployments.delete('taken');
      await services.delete('taken');
      const removedAt = Date.now();
      const own = await eventually(async () => {
        const [deployment, service] = await Promise.all([
          deployments.get('taken'),
          services.get('taken'),
        ]);
        for (const object of [deployment, service]) {
          expect(object.metadata?.ownerReferences).toEqual([
            expect.objectContaining({ uid: created.metadata!.uid, controller: true }),
          ]);
        }
        return deployment;
      }, 30_000);
      console.log(
        `own Deployment and Service ${Date.now() - removedAt} ms after theirs were deleted`,
      );
      expect(own.spec.template.spec?.containers.map((container) => container.name)).toEqual([
        'web',
      ]);
      await eventually(async () =>
        expect(condition(await webapps.get('taken'), 'Degraded')).toMatchObject({
          status: 'False',
        }),
      );
    } finally {
      await running.stop();
    }
  });

  it('creates its objects with a create and hands their fields to server-side apply, so a field dropped later goes; an apply that names a UID changes that object only', async () => {
    const running = await startOperator(namespace.name);
    try {
      const webapps = createWebAppsClient(cs.rest, namespace.name);
      const deployments = cs.appsV1.deployments(namespace.name);
      await webapps.create(
        webApp('handed', {
          replicas: 1,
          env: [
            { name: 'A', value: '1' },
            { name: 'B', value: '2' },
          ],
        }),
      );
      const created = await eventually(() => deployments.get('handed'));
      expect(
        created.metadata?.managedFields
          ?.filter((entry) => entry.manager === FIELD_MANAGER)
          .map((entry) => entry.operation),
      ).toEqual(['Update']); // a create, which fails when the name is taken
      // B dropped from the spec: the first apply hands the create's fields over, then B goes.
      await webapps.patch('handed', 'json', [{ op: 'remove', path: '/spec/container/env/1' }]);
      const updated = await eventually(async () => {
        const current = await deployments.get('handed');
        expect(current.spec.template.spec?.containers[0]?.env).toEqual([{ name: 'A', value: '1' }]);
        return current;
      });
      expect(
        updated.metadata?.managedFields
          ?.filter((entry) => entry.manager === FIELD_MANAGER)
          .map((entry) => entry.operation),
      ).toEqual(['Apply']);

      // What the operator's applies rely on: with the UID it read, an apply neither creates an
      // object of that name (409) nor changes another one that took the name since (422).
      const theirs = (uid?: string): Deployment => ({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'recreated', ...(uid ? { uid } : {}) },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'recreated' } },
          template: {
            metadata: { labels: { app: 'recreated' } },
            spec: { containers: [{ name: 'c', image: 'httpd:2' }] },
          },
        },
      });
      const failure = (promise: Promise<unknown>) =>
        promise.then(
          () => undefined,
          (error: unknown) => error,
        );
      const first = await deployments.create(theirs(), { fieldManager: 'another-team' });
      await deployments.delete('recreated');
      await eventually(async () => {
        await expect(deployments.get('recreated')).rejects.toSatisfy(isNotFound);
      });
      const applyWithFirstUid = () =>
        deployments.apply(
          {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: { name: 'recreated', uid: first.metadata!.uid! },
            spec: { replicas: 5 },
          },
          { fieldManager: FIELD_MANAGER, force: true },
        );
      expect(isConflict(await failure(applyWithFirstUid()))).toBe(true);
      await expect(deployments.get('recreated')).rejects.toSatisfy(isNotFound);
      const second = await deployments.create(theirs(), { fieldManager: 'another-team' });
      expect(isInvalid(await failure(applyWithFirstUid()))).toBe(true);
      const after = await deployments.get('recreated');
      expect(after.spec.replicas).toBe(1);
      expect(after.metadata?.generation).toBe(second.metadata?.generation);
      expect(after.metadata?.managedFields?.map((entry) => entry.manager)).not.toContain(
        FIELD_MANAGER,
      );
    } finally {
      await running.stop();
    }
  });

  it('on delete removes the registry entry, then the finalizer; the garbage collector deletes the Deployment and Service', async () => {
    const running = await startOperator(namespace.name);
    try {
      const webapps = createWebAppsClient(cs.rest, namespace.name);
      const configMaps = cs.coreV1.configMaps(namespace.name);
      await webapps.create(webApp('keep'));
      await webapps.create(webApp('gone'));
      await eventually(async () => {
        expect(
          Object.keys((await configMaps.get(registryName(namespace.name))).data ?? {}).sort(),
        ).toEqual([`${namespace.name}.gone`, `${namespace.name}.keep`]);
        await cs.coreV1.services(namespace.name).get('gone');
      });

      const deleted = await webapps.delete('gone');
      expect(deleted.gone).toBe(false); // the finalizer holds it until the clean-up is done
      await eventually(async () => {
        await expect(webapps.get('gone')).rejects.toSatisfy(isNotFound);
      });
      expect(Object.keys((await configMaps.get(registryName(namespace.name))).data ?? {})).toEqual([
        `${namespace.name}.keep`,
      ]);
      await eventually(async () => {
        await expect(cs.appsV1.deployments(namespace.name).get('gone')).rejects.toSatisfy(
          isNotFound,
        );
        await expect(cs.coreV1.services(namespace.name).get('gone')).rejects.toSatisfy(isNotFound);
      });
      await cs.appsV1.deployments(namespace.name).get('keep');
    } finally {
      await running.stop();
    }
  });

  it('keeps the finalizer while the clean-up fails, and finishes once it can', async () => {
    const running = await startOperator(namespace.name);
    try {
      const webapps = createWebAppsClient(cs.rest, namespace.name);
      const configMaps = cs.coreV1.configMaps(namespace.name);
      await webapps.create(webApp('stuck'));
      await eventually(async () =>
        expect((await configMaps.get(registryName(namespace.name))).data).toHaveProperty(
          `${namespace.name}.stuck`,
        ),
      );
      // An immutable registry refuses every patch (422): the entry cannot be removed.
      await configMaps.patch(registryName(namespace.name), 'merge', { immutable: true });
      await webapps.delete('stuck');
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const held = await webapps.get('stuck');
      expect(held.metadata?.deletionTimestamp).toBeDefined();
      expect(held.metadata?.finalizers).toEqual([FINALIZER]);
      expect(running.logs.join('')).toMatch(
        /reconcile failed; retrying with backoff.*webapp-registry/,
      );
      await eventually(async () =>
        expect((await eventsOf('stuck')).join('\n')).toMatch(
          /^Warning CleanupFailed: could not remove the registry entry: .*immutable/m,
        ),
      );

      // Without the registry there is nothing left to clean: the finalizer goes, then the WebApp.
      await configMaps.delete(registryName(namespace.name));
      await eventually(async () => {
        await expect(webapps.get('stuck')).rejects.toSatisfy(isNotFound);
      });
      expect(await eventsOf('stuck')).toContain(
        'Normal CleanedUp: removed the registry entry; the finalizer goes next',
      );
    } finally {
      await running.stop();
    }
  });

  it('recreates a deleted registry within seconds while idle, with every entry', async () => {
    const running = await startOperator(namespace.name);
    try {
      const webapps = createWebAppsClient(cs.rest, namespace.name);
      const configMaps = cs.coreV1.configMaps(namespace.name);
      await webapps.create(webApp('listed-a'));
      await webapps.create(webApp('listed-b'));
      const entries = {
        [`${namespace.name}.listed-a`]: `http://listed-a.${namespace.name}.svc:80`,
        [`${namespace.name}.listed-b`]: `http://listed-b.${namespace.name}.svc:80`,
      };
      await eventually(async () =>
        expect((await configMaps.get(registryName(namespace.name))).data).toEqual(entries),
      );
      // Idle: nothing else changes, so only the registry's own delete can bring it back.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      await configMaps.delete(registryName(namespace.name));
      const deletedAt = Date.now();
      await eventually(
        async () =>
          expect((await configMaps.get(registryName(namespace.name))).data).toEqual(entries),
        10_000,
      );
      console.log(`registry recreated ${Date.now() - deletedAt} ms after its delete`);
    } finally {
      await running.stop();
    }
  });

  it('never sees a WebApp the CRD’s validation rejects', async () => {
    const running = await startOperator(namespace.name);
    try {
      const webapps = createWebAppsClient(cs.rest, namespace.name);
      const rejected = async (webapp: WebApp) => {
        const error = await webapps.create(webapp).then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(isInvalid(error)).toBe(true);
        return (error as ApiError).message;
      };
      expect(await rejected(webApp('too-big', { replicas: 51 }))).toMatch(
        /replicas must be at most 50/,
      );
      expect(
        await rejected(webApp('reserved', { env: [{ name: 'KUBERNETES_PORT', value: 'x' }] })),
      ).toMatch(/env names starting with KUBERNETES_ are reserved/);
      expect(await rejected(webApp('no-port', { port: 70000 }))).toMatch(/spec.container.port/);
      expect(
        await rejected(webApp('bad-cpu', { resources: { requests: { cpu: 'half' } } })),
      ).toMatch(/spec.container.resources.requests.cpu/);
      await webapps.create(webApp('fine', { replicas: 50 }));
      await eventually(() => cs.appsV1.deployments(namespace.name).get('fine'));
      expect(running.operator.webapps.lister.keys()).toEqual([`${namespace.name}/fine`]);
      expect(
        (await cs.appsV1.deployments(namespace.name).list()).items.map(
          (item) => item.metadata?.name,
        ),
      ).toEqual(['fine']);
    } finally {
      await running.stop();
    }
  });

  it('applies resources the server rewrites (0.5 → 500m, 1024Mi → 1Gi, 1000m → 1) once, and never again nor as drift', async () => {
    const running = await startOperator(namespace.name);
    try {
      const webapps = createWebAppsClient(cs.rest, namespace.name);
      const deployments = cs.appsV1.deployments(namespace.name);
      await webapps.create(
        webApp('quantities', {
          replicas: 1,
          resources: {
            requests: { cpu: '0.5', memory: '1024Mi' },
            limits: { cpu: '1000m', memory: '2048Mi' },
          },
        }),
      );
      // The Pod starts on a kwok node: each status change of the Deployment is a reconcile.
      await eventually(async () => {
        const current = await webapps.get('quantities');
        expect(current.status?.readyReplicas).toBe(1);
        expect(condition(current, 'Available')).toMatchObject({ status: 'True' });
      });
      expect((await deployments.get('quantities')).spec.template.spec?.containers[0]).toMatchObject(
        {
          resources: {
            requests: { cpu: '500m', memory: '1Gi' },
            limits: { cpu: '1', memory: '2Gi' },
          },
        },
      );
      // More reconciles with nothing to change: the WebApp's and the Deployment's labels move.
      for (const round of [1, 2, 3]) {
        await webapps.patch('quantities', 'merge', { metadata: { labels: { round: `${round}` } } });
        await deployments.patch(
          'quantities',
          'merge',
          { metadata: { labels: { round: `${round}` } } },
          { fieldManager: 'someone' },
        );
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const deploymentWrites = () =>
        environment().audit.records({
          userAgent: new RegExp(`^demo-operator/e2e-${namespace.name}( |$)`),
          resource: 'deployments',
          name: 'quantities',
          verb: /^(create|update|patch)$/,
        });
      expect(await deploymentWrites()).toHaveLength(1);
      expect(await eventsOf('quantities')).toEqual([
        'Normal Created: created Deployment quantities and Service quantities',
      ]);

      // A change of value is still one: 0.5 → 0.75 CPU.
      await webapps.patch('quantities', 'merge', {
        spec: { container: { resources: { requests: { cpu: '0.75' } } } },
      });
      await eventually(async () =>
        expect(
          (await deployments.get('quantities')).spec.template.spec?.containers[0]?.resources
            ?.requests?.cpu,
        ).toBe('750m'),
      );
      await new Promise((resolve) => setTimeout(resolve, 2000));
      // One apply, after the one-time hand-over of the create's fields to it (a managedFields patch).
      expect((await deploymentWrites()).map((record) => record.verb)).toEqual([
        'create',
        'patch',
        'patch',
      ]);
    } finally {
      await running.stop();
    }
  });

  it('reads quantities as the API server does: the value it stores for each form is the same quantity', async () => {
    const forms = [
      '0.5',
      '.5',
      '1.',
      '1000m',
      '1024Mi',
      '0.5Gi',
      '1073741824',
      '2000',
      '1e3',
      '1E3',
    ];
    const pod = await cs.coreV1.pods(namespace.name).create(
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'quantity-forms' },
        spec: {
          containers: forms.map((cpu, index) => ({
            name: `c${index}`,
            image: 'nginx',
            resources: { requests: { cpu, memory: cpu } },
          })),
        },
      },
      { dryRun: 'All' },
    );
    const stored = pod.spec!.containers.map((container) => container.resources?.requests?.cpu);
    // The server did rewrite them: a plain text comparison would fail for most.
    expect(stored.filter((value, index) => value !== forms[index]).length).toBeGreaterThan(5);
    for (const [index, form] of forms.entries())
      expect(sameQuantity(stored[index], form)).toBe(true);
  });
});
