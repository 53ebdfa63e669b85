import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, link, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureBinaries } from '../src/build.js';
import type { Binaries } from '../src/build.js';
import { BINARY_NAMES } from '../src/cache-layout.js';
import { startControlPlane, type StartControlPlaneOptions } from '../src/control-plane.js';
import { ControlPlaneError } from '../src/errors.js';
import { isPortFree } from '../src/free-port.js';
import { kubeRequest } from '../src/kube-request.js';
import setup from '../src/vitest-global-setup.js';
import { KUBECONFIG_ENV } from '../src/test-namespace.js';
import { childrenOf, isAlive, kubectl, processesMentioning, waitFor } from './helpers.js';

// Each test gets its own parent for run dirs, so "nothing left" is checkable: no file in it and no
// process whose command line mentions it.
const scratch = await mkdtemp(join(tmpdir(), 'k-testenv-e2e-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));
const binaries: Binaries = await ensureBinaries({ build: false });

async function freshParent(name: string): Promise<string> {
  const dir = join(scratch, name);
  await mkdir(dir);
  return dir;
}

async function expectNothingLeft(parent: string): Promise<void> {
  expect(await readdir(parent)).toEqual([]);
  expect(
    await waitFor<boolean>(
      'no process left',
      () => (processesMentioning(parent).length === 0 ? true : undefined),
      10_000,
    ),
  ).toBe(true);
}

async function failedStart(options: StartControlPlaneOptions): Promise<ControlPlaneError> {
  const error = await startControlPlane(options).then(
    (controlPlane) => controlPlane.stop().then(() => new Error('the start should have failed')),
    (caught: unknown) => caught,
  );
  if (!ControlPlaneError.isInstance(error)) throw error;
  return error;
}

function occupy(): Promise<Server & { port: number }> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(
        Object.assign(server, { port: typeof address === 'object' && address ? address.port : 0 }),
      );
    });
  });
}

describe('stop', () => {
  it('ends every started process, frees the ports and removes the run dir', async () => {
    const parent = await freshParent('stop');
    const startedAt = Date.now();
    const controlPlane = await startControlPlane({ binaries, runDirParent: parent });
    const readyMs = Date.now() - startedAt;
    expect(readyMs).toBeLessThan(60_000);
    expect(controlPlane.processes.map((child) => child.name)).toEqual([
      'etcd',
      'kube-apiserver',
      'kube-controller-manager',
      'kube-scheduler',
      'kwok',
    ]);
    expect(controlPlane.nodes).toEqual(['k-testenv-node-0', 'k-testenv-node-1']);
    expect(controlPlane.processes.every((child) => isAlive(child.pid))).toBe(true);
    const ports = Object.values(controlPlane.ports);
    expect(await Promise.all(ports.map(isPortFree))).toEqual(ports.map(() => false));

    await Promise.all([controlPlane.stop(), controlPlane.stop()]);
    expect(controlPlane.processes.filter((child) => isAlive(child.pid))).toEqual([]);
    expect(await Promise.all(ports.map(isPortFree))).toEqual(ports.map(() => true));
    expect(existsSync(controlPlane.runDir)).toBe(false);
    await expectNothingLeft(parent);
  });
});

describe('a start that fails', () => {
  it('reports a taken etcd port as PORT_IN_USE and cleans up', async () => {
    const parent = await freshParent('etcd-port');
    const blocker = await occupy();
    try {
      const error = await failedStart({
        binaries,
        runDirParent: parent,
        ports: { etcd: blocker.port },
      });
      expect(error.code).toBe('PORT_IN_USE');
      expect(error.step).toBe('start etcd');
      expect(error.message).toContain('address already in use');
    } finally {
      blocker.close();
    }
    await expectNothingLeft(parent);
  });

  it('reports a taken kube-apiserver port as PORT_IN_USE after etcd started, and stops etcd', async () => {
    const parent = await freshParent('apiserver-port');
    const blocker = await occupy();
    try {
      const error = await failedStart({
        binaries,
        runDirParent: parent,
        ports: { apiServer: blocker.port },
      });
      expect(error.code).toBe('PORT_IN_USE');
      expect(error.step).toBe('start kube-apiserver');
      expect(error.logTail).toMatch(/address already in use/);
    } finally {
      blocker.close();
    }
    await expectNothingLeft(parent);
  });

  it('retries a port conflict with new free ports, then gives up with PORT_IN_USE', async () => {
    const parent = await freshParent('retry');
    const blocker = await occupy();
    const retries: string[] = [];
    try {
      // The extra flag pins etcd's peer URL to a taken port, so every attempt hits a conflict.
      const error = await failedStart({
        binaries,
        runDirParent: parent,
        portAttempts: 3,
        extraEtcdFlags: [`--listen-peer-urls=http://127.0.0.1:${blocker.port}`],
        onProgress: (event) => {
          if (event.kind === 'info' && event.message.includes('retrying with new ports'))
            retries.push(event.step);
        },
      });
      expect(error.code).toBe('PORT_IN_USE');
      expect(retries).toEqual(['start', 'start']);
    } finally {
      blocker.close();
    }
    await expectNothingLeft(parent);
  });

  it('reports a process that exits (bad flag) as PROCESS_EXITED with its log tail', async () => {
    const parent = await freshParent('bad-flag');
    const error = await failedStart({
      binaries,
      runDirParent: parent,
      extraApiServerFlags: ['--no-such-flag=1'],
    });
    expect(error.code).toBe('PROCESS_EXITED');
    expect(error.message).toMatch(/kube-apiserver exited with code \d+ while starting/);
    expect(error.logTail).toContain('unknown flag: --no-such-flag');
    await expectNothingLeft(parent);
  });

  it('reports READY_TIMEOUT when the budget runs out, and cleans up', async () => {
    const parent = await freshParent('timeout');
    const error = await failedStart({ binaries, runDirParent: parent, timeoutMs: 1 });
    expect(error.code).toBe('READY_TIMEOUT');
    expect(error.message).toContain('was not ready in time');
    await expectNothingLeft(parent);
  });

  it('refuses a corrupted cache entry with CACHE_CORRUPT, starts nothing and cleans up', async () => {
    const parent = await freshParent('corrupt');
    const cacheRoot = join(scratch, 'corrupt-cache');
    const entry = join(cacheRoot, basename(binaries.entryDir));
    await mkdir(join(entry, 'bin'), { recursive: true });
    for (const name of BINARY_NAMES) {
      const from = join(binaries.entryDir, 'bin', name);
      const to = join(entry, 'bin', name);
      // Hard links keep this cheap; a copy where the cache is on another file system.
      await link(from, to).catch(() => copyFile(from, to));
    }
    const stamp = JSON.parse(await readFile(join(binaries.entryDir, 'stamp.json'), 'utf8')) as {
      files: Record<string, { sha256: string }>;
    };
    stamp.files['bin/kube-apiserver']!.sha256 = '0'.repeat(64);
    await writeFile(join(entry, 'stamp.json'), JSON.stringify(stamp));

    const error = await failedStart({ cacheRoot, build: false, runDirParent: parent });
    expect(error.code).toBe('CACHE_CORRUPT');
    expect(error.message).toMatch(/kube-apiserver has sha256 [0-9a-f]{64}, the stamp says 0{64}/);
    await expectNothingLeft(parent);
  });
});

describe('when the test process dies', () => {
  it('the watchdog stops every process and removes the run dir after a SIGKILL', async () => {
    const parent = await freshParent('sigkill');
    const tsx = createRequire(import.meta.url).resolve('tsx');
    const fixture = fileURLToPath(new URL('./fixtures/start-and-hang.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', tsx, fixture, parent], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const started = await new Promise<{
      runDir: string;
      processes: { pid: number }[];
      ports: Record<string, number>;
    }>((resolve, reject) => {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('\n')) resolve(JSON.parse(output.split('\n')[0]!) as never);
      });
      child.once('exit', (code) => reject(new Error(`fixture exited with ${code}: ${stderr}`)));
    });
    expect(started.processes).toHaveLength(5);
    expect(started.processes.every((process) => isAlive(process.pid))).toBe(true);

    child.kill('SIGKILL');
    await waitFor<boolean>('the watchdog to stop everything', () =>
      started.processes.some((process) => isAlive(process.pid)) ? undefined : true,
    );
    await waitFor<boolean>(
      'the run dir to be removed',
      () => (existsSync(started.runDir) ? undefined : true),
      5_000,
    );
    const ports = Object.values(started.ports);
    expect(await Promise.all(ports.map(isPortFree))).toEqual(ports.map(() => true));
    await expectNothingLeft(parent);
  });
});

describe('the vitest global setup', () => {
  it('reuses the control plane K_TESTENV_KUBECONFIG points at and leaves it running', async () => {
    const kubeconfigPath = process.env[KUBECONFIG_ENV]!;
    // Other test files run in parallel workers, so count only what this worker would start.
    const before = childrenOf(process.pid);
    const provided: Record<string, unknown> = {};
    const teardown = await setup({
      provide: (key: string, value: unknown) => (provided[key] = value),
    } as never);
    expect((provided.kTestenv as { kubeconfigPath: string }).kubeconfigPath).toBe(kubeconfigPath);
    expect(childrenOf(process.pid).filter((pid) => !before.includes(pid))).toEqual([]);
    await teardown();
    const result = await kubectl(kubeconfigPath, ['get', 'namespace', 'default', '-o', 'name']);
    expect(result.stdout.trim()).toBe('namespace/default');
  });

  it('refuses a K_TESTENV_KUBECONFIG whose control plane is gone', async () => {
    const parent = await freshParent('gone');
    const controlPlane = await startControlPlane({
      binaries,
      runDirParent: parent,
      controllerManager: false,
    });
    const ready = await kubeRequest({
      server: controlPlane.server,
      path: '/readyz',
      caPem: controlPlane.caPem,
      credentials: controlPlane.users.admin,
    });
    expect(ready.status).toBe(200);
    await controlPlane.stop();
    const previous = process.env[KUBECONFIG_ENV];
    process.env[KUBECONFIG_ENV] = controlPlane.kubeconfigPath;
    try {
      await expect(setup({ provide: () => {} } as never)).rejects.toThrow(
        /is not a k-testenv kubeconfig/,
      );
    } finally {
      process.env[KUBECONFIG_ENV] = previous;
    }
  });
});
