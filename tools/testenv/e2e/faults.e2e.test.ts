import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../src/control-plane.js';
import type { FaultProxy } from '../src/fault-proxy.js';
import { kubeRequest } from '../src/kube-request.js';
import { isAlive, kubectl } from './helpers.js';

// Faults disturb everything on a control plane, so these tests start their own (no nodes, no
// controllers: only etcd and kube-apiserver matter here).
let plane: ControlPlane;
let proxy: FaultProxy;
beforeAll(async () => {
  plane = await startControlPlane({ nodes: 0, controllerManager: false, scheduler: false });
  proxy = await plane.faultProxy();
});
afterAll(async () => {
  await plane?.stop();
});

const get = (server: string, path = '/api/v1/namespaces/default', timeoutMs = 5000) =>
  kubeRequest({ server, path, caPem: plane.caPem, credentials: plane.users.admin, timeoutMs });

/** openWatch starts a watch through `server` and resolves when its response has begun. */
function openWatch(server: string): Promise<{ ended: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const watch = request(new URL('/api/v1/namespaces/default/configmaps?watch=1', server), {
      ca: plane.caPem,
      cert: plane.users.admin.certPem,
      key: plane.users.admin.keyPem,
      agent: false,
    });
    watch.on('error', reject);
    watch.on('response', (response) => {
      const ended = new Promise<string>((done) => {
        response.on('end', () => done('end'));
        response.on('aborted', () => done('aborted'));
        response.on('error', () => done('error'));
        response.on('close', () => done('close'));
      });
      response.resume();
      resolve({ ended });
    });
    watch.end();
  });
}

describe('restart, stop and start of a component', () => {
  it('restarts kube-apiserver in place: same port and data, a new process, requests work again', async () => {
    const before = plane.processes.find((child) => child.name === 'kube-apiserver')!;
    await kubectl(plane.kubeconfigPath, ['create', 'configmap', 'survivor', '-n', 'default']);
    await plane.restart('kube-apiserver');
    const after = plane.processes.find((child) => child.name === 'kube-apiserver')!;
    expect(after.pid).not.toBe(before.pid);
    expect(isAlive(before.pid)).toBe(false);
    const read = await kubectl(plane.kubeconfigPath, [
      'get',
      'configmap',
      'survivor',
      '-o',
      'name',
    ]);
    expect(read.stdout.trim()).toBe('configmap/survivor');
    expect(plane.server).toBe(`https://127.0.0.1:${plane.ports.apiServer}`);
  });

  it('stops kube-apiserver (connections are refused) and starts it again', async () => {
    await plane.stopComponent('kube-apiserver');
    expect(plane.processes.map((child) => child.name)).toEqual(['etcd']);
    await expect(get(plane.server)).rejects.toThrow(/ECONNREFUSED/);
    await plane.startComponent('kube-apiserver');
    expect((await get(plane.server)).status).toBe(200);
  });

  it('stops kube-apiserver with a watch open at once: the watch ends cleanly, no SIGKILL needed', async () => {
    const watch = await openWatch(plane.server);
    // Without ending watches, kube-apiserver's HTTP shutdown waits up to 60 s for this one; past
    // the plane's grace period (10 s) SIGKILL resets the connection instead of ending the watch.
    await plane.restart('kube-apiserver');
    expect(await watch.ended).toBe('end');
    expect((await get(plane.server)).status).toBe(200);
  });

  it('refuses components the plane does not have', async () => {
    await expect(plane.restart('kwok')).rejects.toThrow(/kwok is not part of this control plane/);
  });
});

describe('the fault proxy', () => {
  it('passes requests through with the same certificates (kubectl with its kubeconfig)', async () => {
    const result = await kubectl(proxy.kubeconfigPath, [
      'get',
      'namespace',
      'default',
      '-o',
      'name',
    ]);
    expect(result.stdout.trim()).toBe('namespace/default');
    expect(proxy.server).toBe(`https://127.0.0.1:${proxy.port}`);
  });

  it('cut ends an open watch', async () => {
    const watch = await openWatch(proxy.server);
    expect(proxy.connections).toBeGreaterThan(0);
    proxy.cut();
    expect(await watch.ended).not.toBe('');
    expect((await get(proxy.server)).status).toBe(200);
  });

  it('stall makes a request hang until its timeout; heal lets traffic flow again', async () => {
    await proxy.stall();
    const startedAt = Date.now();
    await expect(get(proxy.server, '/api/v1/namespaces/default', 1500)).rejects.toThrow(
      /timed out after 1500ms/,
    );
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1400);
    await proxy.heal();
    expect((await get(proxy.server)).status).toBe(200);
  });

  it('refuse closes the port (ECONNREFUSED) until heal', async () => {
    await proxy.refuse();
    await expect(get(proxy.server)).rejects.toThrow(/ECONNREFUSED/);
    await proxy.heal();
    expect((await get(proxy.server)).status).toBe(200);
  });

  it('refuse resolves while a connection is open, and the open one goes on', async () => {
    const watch = await openWatch(proxy.server);
    await proxy.refuse();
    await expect(get(proxy.server)).rejects.toThrow(/ECONNREFUSED/);
    expect(proxy.connections).toBeGreaterThan(0);
    await proxy.heal();
    expect((await get(proxy.server)).status).toBe(200);
    proxy.cut();
    expect(await watch.ended).not.toBe('');
  });

  it('latency delays every chunk', async () => {
    proxy.latency(400);
    const startedAt = Date.now();
    expect((await get(proxy.server)).status).toBe(200);
    // TLS needs several round trips, each one delayed both ways.
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(800);
    proxy.latency(0);
  });
});

describe('compactEtcd', () => {
  it('makes a watch from a compacted resourceVersion fail with 410 Gone (watch cache off)', async () => {
    const uncached = await startControlPlane({
      nodes: 0,
      controllerManager: false,
      scheduler: false,
      extraApiServerFlags: ['--watch-cache=false'],
    });
    try {
      const admin = {
        server: uncached.server,
        caPem: uncached.caPem,
        credentials: uncached.users.admin,
      };
      const created = await kubeRequest({
        ...admin,
        method: 'POST',
        path: '/api/v1/namespaces/default/configmaps',
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'old' } },
      });
      const oldVersion = (JSON.parse(created.body) as { metadata: { resourceVersion: string } })
        .metadata.resourceVersion;
      await kubeRequest({
        ...admin,
        method: 'POST',
        path: '/api/v1/namespaces/default/configmaps',
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'newer' } },
      });
      // One more revision, so the compaction (at the current one) covers where the watch starts.
      await kubeRequest({
        ...admin,
        method: 'POST',
        path: '/api/v1/namespaces/default/configmaps',
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'newest' } },
      });
      const before = await kubeRequest({
        ...admin,
        path: `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${oldVersion}&timeoutSeconds=1`,
      });
      expect(before.body).toContain('"type":"ADDED"');
      const revision = await uncached.compactEtcd();
      expect(revision).toBeGreaterThan(Number(oldVersion));
      const after = await kubeRequest({
        ...admin,
        path: `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${oldVersion}&timeoutSeconds=1`,
      });
      const gone = after.status === 410 ? after.body : after.body.split('\n')[0]!;
      expect(gone).toContain('"code":410');
      expect(gone).toMatch(/Expired|Gone|too old|compacted/);
    } finally {
      await uncached.stop();
    }
  });
});
