import { ConnectionError, type Clientset } from '@k/clientset';
import { controlPlane } from '@k/testenv/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { connectEnvironment, EnvtestError } from '../src/index.js';
import type { EnvironmentFaultProxy } from '../src/types.js';
import { useEnvironment } from '../src/vitest/index.js';

// Faults disturb everything on a plane, so this file starts its own: no nodes, no controllers,
// only etcd and kube-apiserver matter here.
const env = useEnvironment({ own: true, nodes: 0, controllerManager: false, scheduler: false });

/** outcome settles `promise` within `ms`: its value, or 'pending' while it has not settled. */
function outcome<T>(promise: Promise<T>, ms: number): Promise<T | 'pending'> {
  return Promise.race([
    promise,
    new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), ms)),
  ]);
}

describe('faults of an owned environment', () => {
  it("restart('kube-apiserver'): the same clientset works again and the data is kept", async () => {
    const clientset = await env.admin.clientset();
    await clientset.coreV1.configMaps('default').create({ metadata: { name: 'survivor' } });
    const before = env.processes.find((child) => child.name === 'kube-apiserver')!.pid;
    await env.restart('kube-apiserver');
    expect(env.processes.find((child) => child.name === 'kube-apiserver')!.pid).not.toBe(before);
    const read = await clientset.coreV1.configMaps('default').get('survivor');
    expect(read.metadata?.name).toBe('survivor');
  });

  it('stopComponent refuses connections until startComponent', async () => {
    const clientset = await env.admin.clientset({ userAgent: 'envtest-faults-stop' });
    await env.stopComponent('kube-apiserver');
    const error = await clientset.coreV1
      .namespaces()
      .get('default', { maxRetries: 0 })
      .catch((caught: unknown) => caught);
    expect(ConnectionError.isInstance(error)).toBe(true);
    await env.startComponent('kube-apiserver');
    expect((await clientset.coreV1.namespaces().get('default')).metadata?.name).toBe('default');
  });

  it('compactEtcd returns the revision it compacted to', async () => {
    const clientset = await env.admin.clientset();
    const created = await clientset.coreV1
      .configMaps('default')
      .create({ metadata: { name: 'before-compaction' } });
    const revision = await env.compactEtcd();
    expect(Number.isInteger(revision)).toBe(true);
    expect(revision).toBeGreaterThanOrEqual(Number(created.metadata?.resourceVersion));
  });

  it('names a component the plane does not run, and refuses what is no component', async () => {
    const missing = await env.restart('kwok').catch((caught: unknown) => caught);
    expect(EnvtestError.isInstance(missing) && missing.code).toBe(
      'ERR_ENVTEST_COMPONENT_UNAVAILABLE',
    );
    expect((missing as Error).message).toContain('does not run kwok');
    const unknown = await env
      .stopComponent('kube-proxy' as never)
      .catch((caught: unknown) => caught);
    expect(EnvtestError.isInstance(unknown) && unknown.code).toBe('ERR_ENVTEST_INVALID_OPTIONS');
  });
});

describe('faultProxy', () => {
  let proxy: EnvironmentFaultProxy;
  let through: Clientset;
  beforeAll(async () => {
    proxy = await env.faultProxy();
    through = await proxy.clientset();
  });

  it('passes requests through to the plane, for each user', async () => {
    expect(proxy.server).not.toBe(env.server);
    expect((await through.coreV1.namespaces().get('default')).metadata?.name).toBe('default');
    const forbidden = await (
      await proxy.clientset(env.unprivileged)
    ).coreV1
      .namespaces()
      .get('default')
      .catch((caught: unknown) => caught);
    expect(forbidden).toMatchObject({ statusCode: 403 });
    expect((forbidden as Error).message).toContain('alice');
  });

  it('cut ends an open watch; new requests pass', async () => {
    const watch = await through.coreV1.configMaps('default').watch();
    const ended = (async () => {
      try {
        const seen: string[] = [];
        // The ADDED events of the existing ConfigMaps, until the cut.
        for await (const event of watch) seen.push(event.type);
        return 'ended';
      } catch {
        return 'failed';
      }
    })();
    proxy.cut();
    expect(await ended).toMatch(/ended|failed/);
    expect((await through.coreV1.namespaces().get('default')).metadata?.name).toBe('default');
  });

  it('stall holds a request until heal, which lets it finish', async () => {
    await proxy.stall();
    const pending = through.coreV1.namespaces().get('default', { maxRetries: 0 });
    expect(await outcome(pending, 500)).toBe('pending');
    await proxy.heal();
    expect((await pending).metadata?.name).toBe('default');
  });

  it('refuse closes the port for new connections until heal', async () => {
    proxy.cut();
    await proxy.refuse();
    const error = await through.coreV1
      .namespaces()
      .get('default', { maxRetries: 0 })
      .catch((caught: unknown) => caught);
    expect(ConnectionError.isInstance(error)).toBe(true);
    await proxy.heal();
    expect((await through.coreV1.namespaces().get('default')).metadata?.name).toBe('default');
  });
});

describe('faultProxy in front of a plane another process owns', () => {
  it('works on a connected handle of the shared plane, and close() closes it', async () => {
    // The run's plane, which the global setup owns: connectEnvironment gives no faults but this.
    const shared = connectEnvironment(controlPlane().kubeconfigPath);
    expect(shared.server).not.toBe(env.server);
    const proxy = await shared.faultProxy();
    const clientset = await proxy.clientset();
    expect(new URL(proxy.server).port).not.toBe(new URL(shared.server).port);
    expect((await clientset.coreV1.namespaces().get('default')).metadata?.name).toBe('default');
    proxy.cut();
    expect((await clientset.coreV1.namespaces().get('default')).metadata?.name).toBe('default');
    await shared.close();
    await expect(proxy.clientset()).rejects.toMatchObject({ code: 'ERR_ENVTEST_NOT_RUNNING' });
    const refused = await fetch(`${proxy.server.replace('https', 'http')}/`).catch(
      (caught: unknown) => caught,
    );
    expect(refused).toBeInstanceOf(Error);
  });
});
