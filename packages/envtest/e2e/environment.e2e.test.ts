import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type { CustomResourceDefinition } from '@k/clientset/apiextensions/v1';
import { ApiError } from '@k/rest/errors';
import { assetsDirectory, resolveCacheRoot } from '@k/testenv';
import { describe, expect, it } from 'vitest';
import {
  connectEnvironment,
  EnvtestError,
  eventually,
  KUBERNETES_VERSION,
  startEnvironment,
  type EnvironmentOptions,
} from '../src/index.js';

// This repository's cache is the engine's (K_TESTENV_CACHE or ~/.cache/k-testenv); the public
// default, ~/.cache/k-envtest, would build again. The entry is the same either way.
const APISERVER_ONLY: EnvironmentOptions = {
  binaries: 'cache',
  cacheRoot: resolveCacheRoot(),
  nodes: 0,
  controllerManager: false,
  scheduler: false,
};

/** processesMentioning lists the pids whose command line or working directory names `text`. */
function processesMentioning(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const commandLine = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      let cwd = '';
      try {
        cwd = readlinkSync(`/proc/${entry}/cwd`);
      } catch {
        // Another user's process, or gone.
      }
      if (commandLine.includes(text) || cwd.startsWith(text)) pids.push(Number(entry));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return pids;
}

async function expectGone(runDir: string): Promise<void> {
  expect(existsSync(runDir)).toBe(false);
  await eventually(() => expect(processesMentioning(`${runDir}/`)).toEqual([]), {
    timeoutMs: 10_000,
  });
}

describe('startEnvironment', () => {
  it('starts a plane from the cache, hands out clientsets per user, and stop() ends it once', async () => {
    const environment = await startEnvironment(APISERVER_ONLY);
    try {
      expect(environment.kubernetesVersion).toBe(KUBERNETES_VERSION);
      expect(environment.binaries.source).toBe('cache');
      expect(environment.components).toEqual(['etcd', 'kube-apiserver']);
      expect(environment.nodes).toEqual([]);
      expect(environment.processes.map((child) => child.name)).toEqual(['etcd', 'kube-apiserver']);
      expect(environment.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);

      const admin = await environment.admin.clientset();
      expect(await environment.admin.clientset()).toBe(admin);
      const namespaces = await admin.coreV1.namespaces().list();
      expect(namespaces.items.map((namespace) => namespace.metadata?.name)).toContain('default');

      const denied = await (
        await environment.unprivileged.clientset()
      ).coreV1
        .namespaces()
        .list()
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(ApiError.isInstance(denied) && denied.statusCode).toBe(403);
      expect(String((denied as Error).message)).toContain('alice');

      const editor = await environment.editor.clientset();
      const configMaps = await editor.coreV1.configMaps('default').list();
      expect(configMaps.items).toBeInstanceOf(Array);
      expect(environment.editor.credentials).toHaveProperty('token');

      // Another handle on the same plane, as a test file of a shared plane gets one.
      const connected = connectEnvironment(environment.kubeconfigPath);
      expect(connected.server).toBe(environment.server);
      expect(connected.components).toEqual(environment.components);
      const connectedAdmin = await connected.admin.clientset();
      expect(connectedAdmin).not.toBe(admin);
      await connectedAdmin.coreV1.namespaces().get('default');
      await connected.close();
      // Closing a connected handle leaves the plane and the owner's clientsets working.
      await admin.coreV1.namespaces().get('default');
    } finally {
      await Promise.all([environment.stop(), environment.stop()]);
    }
    await environment.stop();
    await expectGone(environment.runDir);

    const error = (() => {
      try {
        connectEnvironment(environment.kubeconfigPath);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(EnvtestError.isInstance(error) && error.code).toBe('ERR_ENVTEST_NOT_RUNNING');
    expect((error as Error).message).not.toMatch(/k-testenv (up|build)/);
  });

  it('installs `crds` before it resolves, and is disposed by `await using`', async () => {
    const group = 'start.envtest.example.com';
    const thing = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `things.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { kind: 'Thing', plural: 'things' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object' } },
          },
        ],
      },
    } satisfies CustomResourceDefinition;
    let runDir: string;
    {
      await using environment = await startEnvironment({
        ...APISERVER_ONLY,
        crds: { objects: [thing] },
      });
      runDir = environment.runDir;
      expect(existsSync(runDir)).toBe(true);
      await environment.apply([
        { apiVersion: `${group}/v1`, kind: 'Thing', metadata: { name: 'a' } },
      ]);
    }
    await expectGone(runDir);
  });
});

describe('startEnvironment from a setup-envtest directory', () => {
  it('runs what the directory has, lets editor edit without kube-controller-manager, and refuses what it lacks before starting', async () => {
    // kube-apiserver, etcd and kubectl, as `setup-envtest use -p path` lays them out.
    const directory = await assetsDirectory({ cacheRoot: resolveCacheRoot() });
    const refused = await startEnvironment({
      binaries: { directory },
      controllerManager: true,
    }).then(
      async (started) => {
        await started.stop();
        return undefined;
      },
      (error: unknown) => error,
    );
    expect(EnvtestError.isInstance(refused) && refused.code).toBe(
      'ERR_ENVTEST_COMPONENT_UNAVAILABLE',
    );
    expect((refused as Error).message).toContain(directory);

    await using environment = await startEnvironment({ binaries: { directory } });
    expect(environment.binaries).toMatchObject({ source: 'directory', directory });
    expect(environment.components).toEqual(['etcd', 'kube-apiserver']);
    expect(environment.nodes).toEqual([]);
    // ClusterRole edit is aggregated by a kube-controller-manager controller; envtest fills it.
    const editor = await environment.editor.clientset();
    await editor.coreV1.configMaps('default').create({ metadata: { name: 'edited' } });
    const unprivileged = await environment.unprivileged.clientset();
    await expect(unprivileged.coreV1.configMaps('default').list()).rejects.toMatchObject({
      statusCode: 403,
    });
  });
});

describe('connectEnvironment', () => {
  it('connects to the run’s shared plane through its kubeconfig and closes only its own clientsets', async () => {
    const kubeconfigPath =
      process.env.K_ENVTEST_KUBECONFIG ?? process.env.K_TESTENV_KUBECONFIG ?? '';
    const environment = connectEnvironment(kubeconfigPath);
    expect(environment.components).toContain('kube-apiserver');
    const admin = await environment.admin.clientset({ userAgent: 'envtest-e2e' });
    await admin.coreV1.namespaces().get('default');
    await environment.close();
    // The clientset is closed; the plane still answers a new handle.
    await expect(admin.coreV1.namespaces().get('default')).rejects.toThrow();
    const again = connectEnvironment(kubeconfigPath);
    await (await again.admin.clientset()).coreV1.namespaces().get('default');
    await again[Symbol.asyncDispose]();
  });
});
