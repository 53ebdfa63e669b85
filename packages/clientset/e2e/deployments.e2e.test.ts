import { isConflict, isNotFound, retryOnConflict, isBadRequest } from '@k/rest';
import { kubeRequest } from '@k/testenv';
import { controlPlane, useTestNamespace } from '@k/testenv/vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clientset } from '../src/index.js';
import type { Deployment } from '../src/generated/apps/v1/index.js';
import { caught } from '@k/test-utils';
import { clientsetFor, eventually } from './helpers.js';

const namespace = useTestNamespace({ prefix: 'clientset-deploy' });
let cs: Clientset;

beforeAll(async () => {
  cs = await clientsetFor();
});

afterAll(async () => {
  await cs?.close();
});

function deployment(name: string, replicas = 1): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { app: name } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'web', image: 'registry.invalid/web:1' }] },
      },
    },
  };
}

describe('Deployments through the typed apps/v1 client', () => {
  it('create, get, list, watch, update, patch, apply, delete and deleteCollection', async () => {
    const deployments = cs.appsV1.deployments(namespace.name);
    const watch = await deployments.watch({ labelSelector: 'app=web', timeoutSeconds: 60 });
    const types: string[] = [];
    const watching = (async () => {
      for await (const event of watch) {
        types.push(event.type);
        if (event.type === 'DELETED') break;
      }
    })();
    const created = await deployments.create(deployment('web'), { fieldManager: 'test' });
    expect(created.spec.replicas).toBe(1);
    const read = await deployments.get('web');
    expect(read.spec.template.spec?.containers[0]?.image).toBe('registry.invalid/web:1');
    expect((await deployments.list()).items.map((item) => item.metadata?.name)).toContain('web');

    const updated = await retryOnConflict(async () => {
      const current = await deployments.get('web');
      current.spec.minReadySeconds = 5;
      return deployments.update(current);
    });
    expect(updated.spec.minReadySeconds).toBe(5);
    const stale = { ...read, spec: { ...read.spec, minReadySeconds: 9 } };
    expect(isConflict(await caught(deployments.update(stale)))).toBe(true);

    const patched = await deployments.patch('web', 'strategic-merge', {
      spec: {
        template: { spec: { containers: [{ name: 'web', image: 'registry.invalid/web:2' }] } },
      },
    });
    expect(patched.spec.template.spec?.containers.map((container) => container.image)).toEqual([
      'registry.invalid/web:2',
    ]);
    const jsonPatched = await deployments.patch('web', 'json', [
      { op: 'replace', path: '/spec/revisionHistoryLimit', value: 3 },
    ]);
    expect(jsonPatched.spec.revisionHistoryLimit).toBe(3);

    const applied = await deployments.apply(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', annotations: { owner: 'applier' } },
      },
      { fieldManager: 'applier' },
    );
    expect(applied.metadata?.annotations?.owner).toBe('applier');

    // Foreground deletion keeps the Deployment (with a finalizer) until its dependents are gone.
    const deleting = await deployments.delete('web', { propagationPolicy: 'Foreground' });
    expect(deleting.gone).toBe(false);
    expect(deleting.object?.metadata?.deletionTimestamp).toBeTruthy();
    await watching;
    expect(types[0]).toBe('ADDED');
    expect(types).toContain('MODIFIED');
    expect(types.at(-1)).toBe('DELETED');
    await eventually(async () =>
      expect(isNotFound(await caught(deployments.get('web')))).toBe(true),
    );

    await deployments.create(deployment('one'));
    await deployments.create(deployment('two'));
    await deployments.deleteCollection({ labelSelector: 'app in (one,two)' });
    await eventually(async () =>
      expect((await deployments.list({ labelSelector: 'app in (one,two)' })).items).toEqual([]),
    );
  });

  it('reads and writes the status subresource', async () => {
    const deployments = cs.appsV1.deployments(namespace.name);
    await deployments.create(deployment('status'));
    const status = await deployments.getStatus('status');
    expect(status.metadata?.name).toBe('status');
    const condition = {
      type: 'Test',
      status: 'True',
      reason: 'ByTheClientset',
      message: 'written through updateStatus',
      lastUpdateTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    };
    const updated = await retryOnConflict(async () => {
      const current = await deployments.getStatus('status');
      current.status = {
        ...current.status,
        conditions: [...(current.status?.conditions ?? []), condition],
      };
      // A status update ignores changes to the spec.
      current.spec.replicas = 7;
      return deployments.updateStatus(current);
    });
    expect(updated.status?.conditions?.some((entry) => entry.type === 'Test')).toBe(true);
    expect(updated.spec.replicas).toBe(1);
    const patched = await deployments.patchStatus('status', 'merge', {
      status: { observedGeneration: 42 },
    });
    expect(patched.status?.observedGeneration).toBe(42);
    const applied = await deployments.applyStatus(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'status' },
        status: { collisionCount: 3 },
      },
      { fieldManager: 'status-applier', force: true },
    );
    expect(applied.status?.collisionCount).toBe(3);
  });

  it('reads and writes the scale subresource', async () => {
    const deployments = cs.appsV1.deployments(namespace.name);
    await deployments.create(deployment('scaled', 1));
    const scale = await deployments.getScale('scaled');
    expect(scale).toMatchObject({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      spec: { replicas: 1 },
    });
    expect(scale.status?.selector).toBe('app=scaled');
    const updated = await retryOnConflict(async () => {
      const current = await deployments.getScale('scaled');
      return deployments.updateScale('scaled', { ...current, spec: { replicas: 2 } });
    });
    expect(updated.spec?.replicas).toBe(2);
    expect(
      (await deployments.patchScale('scaled', 'merge', { spec: { replicas: 3 } })).spec?.replicas,
    ).toBe(3);
    const applied = await deployments.applyScale(
      'scaled',
      {
        apiVersion: 'autoscaling/v1',
        kind: 'Scale',
        metadata: { name: 'scaled' },
        spec: { replicas: 4 },
      },
      { fieldManager: 'scaler', force: true },
    );
    expect(applied.spec?.replicas).toBe(4);
    expect((await deployments.get('scaled')).spec.replicas).toBe(4);
  });
});

describe('Pods', () => {
  it('streams the log subresource from the fake node (kwok serves the file a Logs object names)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'clientset-logs-'));
    try {
      // The CRI log format, as a kubelet reads it from disk.
      const logFile = join(dir, 'c.log');
      await writeFile(
        logFile,
        '2026-01-01T00:00:00.000000000Z stdout F first\n2026-01-01T00:00:01.000000000Z stdout F second\n',
      );
      const { server, caPem, users } = controlPlane();
      const configured = await kubeRequest({
        server,
        caPem,
        credentials: users.admin,
        method: 'POST',
        path: `/apis/kwok.x-k8s.io/v1alpha1/namespaces/${namespace.name}/logs`,
        body: {
          apiVersion: 'kwok.x-k8s.io/v1alpha1',
          kind: 'Logs',
          metadata: { name: 'p' },
          spec: { logs: [{ containers: ['c'], logsFile: logFile }] },
        },
      });
      expect(configured.status, configured.body).toBe(201);
      const pods = cs.coreV1.pods(namespace.name);
      await pods.create({
        metadata: { name: 'p' },
        spec: { containers: [{ name: 'c', image: 'registry.invalid/c:1' }] },
      });
      await eventually(async () => expect((await pods.get('p')).status?.phase).toBe('Running'));
      const text = await eventually(async () => {
        const stream = await pods.logs('p', { container: 'c', tailLines: 10 });
        let received = '';
        for await (const chunk of stream) received += String(chunk);
        expect(received).toBe('first\nsecond\n');
        return received;
      });
      expect(text).toBe('first\nsecond\n');
      expect(isBadRequest(await caught(pods.logs('p', { container: 'nope' })))).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
