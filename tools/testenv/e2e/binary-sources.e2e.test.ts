import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { assetsDirectory, resolveBinaries } from '../src/binary-sources.js';
import { ensureBinaries } from '../src/build.js';
import { startControlPlane, type StartControlPlaneOptions } from '../src/control-plane.js';
import { ControlPlaneError } from '../src/errors.js';
import { kubeRequest } from '../src/kube-request.js';
import { KUBERNETES_VERSION } from '../src/release.js';
import { kubectl, processesMentioning, waitFor } from './helpers.js';

const launcher = fileURLToPath(new URL('../bin/k-testenv.mjs', import.meta.url));
const scratch = await mkdtemp(join(tmpdir(), 'k-testenv-sources-e2e-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));

// A setup-envtest-layout directory: kube-apiserver and etcd hard-linked to the cache, kubectl from
// PATH; no kube-controller-manager, kube-scheduler or kwok.
const assets = await assetsDirectory({ directory: join(scratch, 'assets'), build: false });
const cache = await ensureBinaries({ build: false, kwok: false });

async function freshParent(name: string): Promise<string> {
  const dir = join(scratch, name);
  await mkdir(dir);
  return dir;
}

async function expectNothingLeft(parent: string): Promise<void> {
  expect(await readdir(parent)).toEqual([]);
  await waitFor(
    'no process left',
    () => (processesMentioning(parent).length === 0 ? true : undefined),
    10_000,
  );
}

async function refusedStart(options: StartControlPlaneOptions): Promise<ControlPlaneError> {
  const error = await startControlPlane(options).then(
    (plane) => plane.stop().then(() => new Error('the start should have been refused')),
    (caught: unknown) => caught,
  );
  if (!ControlPlaneError.isInstance(error)) throw error;
  return error;
}

function cli(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [launcher, ...args], { timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({
        code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
        stdout,
        stderr,
      }),
    );
  });
}

describe('a setup-envtest directory (kube-apiserver, etcd, kubectl)', () => {
  it('holds hard links to the cache entry and kubectl', async () => {
    expect((await readdir(assets)).sort()).toEqual(['etcd', 'kube-apiserver', 'kubectl']);
    expect((await stat(join(assets, 'kube-apiserver'))).ino).toBe(
      (await stat(cache.kubeApiServer)).ino,
    );
    expect((await stat(join(assets, 'etcd'))).ino).toBe((await stat(cache.etcd)).ino);
  });

  it('through KUBEBUILDER_ASSETS starts an apiserver+etcd plane without garbage collection or the ServiceAccount plugin', async () => {
    const parent = await freshParent('assets-start');
    const binaries = await resolveBinaries({ env: { ...process.env, KUBEBUILDER_ASSETS: assets } });
    expect(binaries).toMatchObject({
      source: 'KUBEBUILDER_ASSETS',
      directory: assets,
      kubectl: join(assets, 'kubectl'),
      kubernetesVersion: KUBERNETES_VERSION,
      components: ['etcd', 'kube-apiserver'],
    });
    const plane = await startControlPlane({ binaries, runDirParent: parent });
    try {
      expect(plane.processes.map((child) => child.name)).toEqual(['etcd', 'kube-apiserver']);
      expect(plane.nodes).toEqual([]);
      const apiServer = plane.processes.find((child) => child.name === 'kube-apiserver')!;
      const flags = (await readFile(`/proc/${apiServer.pid}/cmdline`, 'utf8')).split('\0');
      expect(flags).toContain('--enable-garbage-collector=false');
      expect(flags).toContain('--disable-admission-plugins=ServiceAccount');

      const asAdmin = { server: plane.server, caPem: plane.caPem, credentials: plane.users.admin };
      const namespace = `assets-${Date.now()}`;
      expect(
        (
          await kubeRequest({
            ...asAdmin,
            path: '/api/v1/namespaces',
            method: 'POST',
            body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
          })
        ).status,
      ).toBe(201);
      // No kube-controller-manager made a `default` ServiceAccount: with the plugin on, this Pod
      // would be refused for the lack of one.
      const pod = await kubeRequest({
        ...asAdmin,
        path: `/api/v1/namespaces/${namespace}/pods`,
        method: 'POST',
        body: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'p' },
          spec: { containers: [{ name: 'c', image: 'example.invalid/c' }] },
        },
      });
      expect(pod.status, pod.body).toBe(201);
      // No garbage collector: a foreground deletion must not wait for one (no finalizer added).
      const owner = await kubeRequest({
        ...asAdmin,
        path: `/api/v1/namespaces/${namespace}/configmaps`,
        method: 'POST',
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } },
      });
      expect(owner.status).toBe(201);
      const deleted = await kubeRequest({
        ...asAdmin,
        path: `/api/v1/namespaces/${namespace}/configmaps/owner`,
        method: 'DELETE',
        body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' },
      });
      expect(deleted.status).toBe(200);
      expect(
        (
          await kubeRequest({
            ...asAdmin,
            path: `/api/v1/namespaces/${namespace}/configmaps/owner`,
          })
        ).status,
      ).toBe(404);
      // kubectl of the directory talks to it.
      const version = await kubectl(plane.kubeconfigPath, [
        'get',
        'namespace',
        namespace,
        '-o',
        'name',
      ]);
      expect(version.stdout.trim()).toBe(`namespace/${namespace}`);
    } finally {
      await plane.stop();
    }
    await expectNothingLeft(parent);
  });

  it('refuses nodes and kube-controller-manager with COMPONENT_UNAVAILABLE, naming it and the directory, and starts nothing', async () => {
    const parent = await freshParent('assets-refused');
    const binaries = await resolveBinaries({ binaries: { directory: assets } });
    expect(binaries.source).toBe('directory');
    const nodes = await refusedStart({ binaries, nodes: 1, runDirParent: parent });
    expect(nodes.code).toBe('COMPONENT_UNAVAILABLE');
    expect(nodes.message).toContain('kwok (for nodes: 1)');
    expect(nodes.message).toContain(assets);
    const controllerManager = await refusedStart({
      binaries,
      controllerManager: true,
      runDirParent: parent,
    });
    expect(controllerManager.code).toBe('COMPONENT_UNAVAILABLE');
    expect(controllerManager.message).toContain('kube-controller-manager');
    expect(controllerManager.message).toContain(assets);
    const scheduler = await refusedStart({ binaries, scheduler: true, runDirParent: parent });
    expect(scheduler.message).toContain('kube-scheduler');
    await expectNothingLeft(parent);
  });
});

describe('the CLI', () => {
  it('`assets` prints a directory that KUBEBUILDER_ASSETS accepts', async () => {
    const result = await cli(['assets']);
    expect(result.code, result.stderr).toBe(0);
    const printed = result.stdout.trim();
    expect((await readdir(printed)).sort()).toEqual(['etcd', 'kube-apiserver', 'kubectl']);
    const binaries = await resolveBinaries({
      env: { ...process.env, KUBEBUILDER_ASSETS: printed },
    });
    expect(binaries.components).toEqual(['etcd', 'kube-apiserver']);
    // A second call reuses it.
    expect((await cli(['assets'])).stdout.trim()).toBe(printed);
  });

  it('`run` gives the command the kubeconfig, stops the plane and exits with its code', async () => {
    const result = await cli([
      'run',
      `--binaries=${assets}`,
      '--',
      'sh',
      '-c',
      'echo "$K_TESTENV_RUN_DIR"; test "$KUBECONFIG" = "$K_TESTENV_KUBECONFIG" && kubectl get namespace default -o name && exit 3',
    ]);
    expect(result.code, result.stderr).toBe(3);
    const [runDir, namespace] = result.stdout.trim().split('\n');
    expect(namespace).toBe('namespace/default');
    expect(existsSync(runDir!)).toBe(false);
    expect(processesMentioning(runDir!)).toEqual([]);
  });

  it('`run` passes SIGINT on to the command, stops the plane and exits 130', async () => {
    const child = spawn(
      process.execPath,
      [
        launcher,
        'run',
        `--binaries=${assets}`,
        '--',
        process.execPath,
        '-e',
        'console.log(process.env.K_TESTENV_RUN_DIR); setInterval(() => {}, 1000)',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => resolve(code)),
    );
    const runDir = await waitFor('the command started', () => stdout.trim() || undefined, 60_000);
    const before = processesMentioning(runDir);
    expect(before.length).toBeGreaterThan(0);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(existsSync(runDir)).toBe(false);
    expect(processesMentioning(runDir)).toEqual([]);
  });
});
