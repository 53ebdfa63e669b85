import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBinaries } from './build.js';
import type { Binaries } from './cache-entry.js';
import {
  toConnection,
  writeControlPlaneState,
  type ControlPlaneConnection,
  type ControlPlaneUsers,
} from './connection.js';
import {
  apiServerFlags,
  controllerManagerFlags,
  etcdFlags,
  type ComponentPorts,
} from './component-flags.js';
import { ControlPlaneError } from './errors.js';
import { freePorts } from './free-port.js';
import { kubeRequest } from './kube-request.js';
import { writeKubeconfig } from './kubeconfig.js';
import { startManagedProcess, type ManagedProcess } from './managed-process.js';
import { waitUntilReady } from './wait-until-ready.js';
import { generatePki, type Pki } from './pki.js';
import { silentProgress, type ProgressSink } from './progress.js';
import { Watchdog } from './watchdog-client.js';

/** ControlPlanePorts are the loopback ports of a control plane. */
export type ControlPlanePorts = ComponentPorts;

/** StartControlPlaneOptions configure {@link startControlPlane}; every field is optional. */
export interface StartControlPlaneOptions {
  /** Appended to kube-apiserver's flags (a later flag wins), e.g. `--max-requests-inflight=1`. */
  readonly extraApiServerFlags?: readonly string[];
  /** Appended to kube-controller-manager's flags. */
  readonly extraControllerManagerFlags?: readonly string[];
  /** Appended to etcd's flags. */
  readonly extraEtcdFlags?: readonly string[];
  /** Start kube-controller-manager (default true). */
  readonly controllerManager?: boolean;
  /** Budget for the whole start once the binaries are there, ms (default 120 000). */
  readonly timeoutMs?: number;
  /** Receives progress of the build (if one is needed) and of each start step. */
  readonly onProgress?: ProgressSink;
  /** Force ports instead of free ones; a taken port then fails with PORT_IN_USE (no retry). */
  readonly ports?: Partial<ControlPlanePorts>;
  /** Use these binaries instead of the cache (they are not verified). */
  readonly binaries?: Binaries;
  /** Build into the cache when it has no valid entry (default true). */
  readonly build?: boolean;
  /** Cache root (default K_TESTENV_CACHE or the user cache dir). */
  readonly cacheRoot?: string;
  /** Parent of the run directory (default the OS temp dir). */
  readonly runDirParent?: string;
  /** How long each process may take to exit after SIGTERM before SIGKILL, ms (default 10 000). */
  readonly stopGraceMs?: number;
  /** Attempts when a free port was taken between probe and bind (default 3). */
  readonly portAttempts?: number;
}

/**
 * ControlPlane is a running etcd + kube-apiserver (+ kube-controller-manager) on 127.0.0.1. `stop()`
 * ends exactly its processes (SIGTERM, SIGKILL after the grace period) and removes `runDir`; it is
 * idempotent and safe to call concurrently.
 */
export interface ControlPlane extends ControlPlaneConnection {
  readonly runDir: string;
  readonly kubernetesVersion: string;
  readonly ports: ControlPlanePorts;
  /** The started processes, in start order. */
  readonly processes: readonly {
    readonly name: string;
    readonly pid: number;
    readonly logPath: string;
  }[];
  /** The path of the state file (for `k-testenv down` and reuse through K_TESTENV_KUBECONFIG). */
  readonly statePath: string;
  stop(): Promise<void>;
}

/**
 * startControlPlane starts a fresh control plane for tests: it makes sure the binaries are built,
 * generates a PKI, starts etcd, kube-apiserver and kube-controller-manager on free loopback ports,
 * waits until they are ready, provisions the users `admin` (system:masters cert), `alice` (cert, no
 * rights) and `tester` (token bound to ClusterRole `edit`) and writes a kubeconfig with one context
 * per user (`admin` current). Everything lives in a fresh run directory. On failure everything
 * started so far is stopped and the run directory removed before the ControlPlaneError is thrown; a
 * watchdog process does the same if the calling process dies (even by SIGKILL) without `stop()`.
 */
export async function startControlPlane(
  options: StartControlPlaneOptions = {},
): Promise<ControlPlane> {
  const progress = options.onProgress ?? silentProgress;
  const binariesPromise = options.binaries
    ? Promise.resolve(options.binaries)
    : ensureBinaries({ build: options.build, cacheRoot: options.cacheRoot, onProgress: progress });
  // Surface a build failure as itself, even if PKI generation fails first.
  binariesPromise.catch(() => {});
  const runDir = await mkdtemp(join(options.runDirParent ?? tmpdir(), 'k-testenv-'));
  const run = new Run(runDir, progress, options.stopGraceMs ?? 10_000);
  try {
    run.watchdog = await Watchdog.start(runDir);
    const [binaries, pki] = await Promise.all([
      binariesPromise,
      run.step('certificates', () => generatePki(join(runDir, 'pki'))),
    ]);
    const started = await run.startWithPortRetries(binaries, pki, options);
    return started;
  } catch (error) {
    await run.stop();
    throw error;
  }
}

class Run {
  readonly processes: ManagedProcess[] = [];
  watchdog: Watchdog | undefined;
  #stopping: Promise<void> | undefined;
  readonly #startedAt = Date.now();

  constructor(
    readonly runDir: string,
    readonly progress: ProgressSink,
    readonly stopGraceMs: number,
  ) {}

  async step<T>(name: string, action: () => Promise<T>): Promise<T> {
    const startedAt = Date.now();
    this.progress({ kind: 'start', step: name, elapsedMs: 0, message: 'started' });
    const result = await action();
    this.progress({ kind: 'end', step: name, elapsedMs: Date.now() - startedAt, message: 'done' });
    return result;
  }

  async spawn(name: string, command: string, args: string[]): Promise<ManagedProcess> {
    const child = await startManagedProcess(
      name,
      command,
      args,
      join(this.runDir, 'logs', `${name}.log`),
    );
    this.processes.push(child);
    this.watchdog?.watch(child.pid);
    return child;
  }

  async startWithPortRetries(
    binaries: Binaries,
    pki: Pki,
    options: StartControlPlaneOptions,
  ): Promise<ControlPlane> {
    await mkdir(join(this.runDir, 'logs'));
    const forced = options.ports ?? {};
    const attempts = Object.keys(forced).length > 0 ? 1 : Math.max(1, options.portAttempts ?? 3);
    for (let attempt = 1; ; attempt++) {
      const [etcd, etcdPeer, apiServer, controllerManager] = await freePorts(4);
      const ports: ControlPlanePorts = {
        etcd: forced.etcd ?? (etcd as number),
        etcdPeer: forced.etcdPeer ?? (etcdPeer as number),
        apiServer: forced.apiServer ?? (apiServer as number),
        controllerManager: forced.controllerManager ?? (controllerManager as number),
      };
      try {
        return await this.startOnce(binaries, pki, ports, options);
      } catch (error) {
        if (!(
          ControlPlaneError.isInstance(error) &&
          error.code === 'PORT_IN_USE' &&
          attempt < attempts
        ))
          throw error;
        this.progress({
          kind: 'info',
          step: 'start',
          elapsedMs: 0,
          message: `${error.message.split('\n')[0]}; retrying with new ports`,
        });
        await this.stopProcesses();
        await rm(join(this.runDir, 'etcd'), { recursive: true, force: true });
      }
    }
  }

  async startOnce(
    binaries: Binaries,
    pki: Pki,
    ports: ControlPlanePorts,
    options: StartControlPlaneOptions,
  ): Promise<ControlPlane> {
    const deadline = Date.now() + (options.timeoutMs ?? 120_000);
    const runDir = this.runDir;
    const etcdUrl = `http://127.0.0.1:${ports.etcd}`;
    const etcd = await this.step('start etcd', async () => {
      const child = await this.spawn(
        'etcd',
        binaries.etcd,
        etcdFlags(runDir, ports, options.extraEtcdFlags),
      );
      await waitUntilReady(child, deadline, async () => {
        const response = await kubeRequest({ server: etcdUrl, path: '/health', timeoutMs: 1000 });
        return response.status === 200 && response.body.includes('"health":"true"');
      });
      return child;
    });
    void etcd;

    const server = `https://127.0.0.1:${ports.apiServer}`;
    const testerToken = randomBytes(24).toString('hex');
    const tokensPath = join(runDir, 'tokens.csv');
    await writeFile(tokensPath, `${testerToken},tester,k-testenv-tester,"k-testenv:testers"\n`, {
      mode: 0o600,
    });
    const users: ControlPlaneUsers = {
      admin: { certPem: pki.admin.certPem, keyPem: pki.admin.keyPem },
      alice: { certPem: pki.alice.certPem, keyPem: pki.alice.keyPem },
      tester: { token: testerToken },
    };
    const kubeconfigPath = join(runDir, 'kubeconfig');
    await writeKubeconfig(kubeconfigPath, {
      clusterName: 'k-testenv',
      server,
      caPem: pki.caPem,
      users: [
        { name: 'admin', ...users.admin },
        { name: 'alice', ...users.alice },
        { name: 'tester', token: testerToken },
      ],
      currentContext: 'admin',
    });

    const adminCredentials = users.admin;
    await this.step('start kube-apiserver', async () => {
      const child = await this.spawn(
        'kube-apiserver',
        binaries.kubeApiServer,
        apiServerFlags({
          runDir,
          ports,
          pki,
          tokenFilePath: tokensPath,
          controllerManager: options.controllerManager ?? true,
          extra: options.extraApiServerFlags,
        }),
      );
      await waitUntilReady(
        child,
        deadline,
        async () => {
          const response = await kubeRequest({
            server,
            path: '/readyz',
            caPem: pki.caPem,
            credentials: adminCredentials,
            timeoutMs: 2000,
          });
          return response.status === 200;
        },
        async () => {
          const response = await kubeRequest({
            server,
            path: '/readyz?verbose',
            caPem: pki.caPem,
            credentials: adminCredentials,
          }).catch(() => undefined);
          return response
            ? response.body
                .split('\n')
                .filter((line) => line.includes('failed'))
                .join('\n')
            : '';
        },
      );
    });

    await this.step('provision users', async () => {
      const response = await kubeRequest({
        server,
        path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
        method: 'POST',
        caPem: pki.caPem,
        credentials: adminCredentials,
        body: {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: 'k-testenv:tester-edit' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'tester' }],
        },
      });
      if (response.status !== 201) {
        throw new ControlPlaneError(
          'PROVISION_FAILED',
          `creating ClusterRoleBinding k-testenv:tester-edit returned ${response.status}`,
          {
            step: 'provision users',
            logTail: response.body,
          },
        );
      }
    });

    if (options.controllerManager ?? true) {
      await this.step('start kube-controller-manager', async () => {
        const child = await this.spawn(
          'kube-controller-manager',
          binaries.kubeControllerManager,
          controllerManagerFlags(
            runDir,
            ports,
            pki,
            kubeconfigPath,
            options.extraControllerManagerFlags,
          ),
        );
        const controllerManagerUrl = `https://127.0.0.1:${ports.controllerManager}`;
        await waitUntilReady(child, deadline, async () => {
          const health = await kubeRequest({
            server: controllerManagerUrl,
            path: '/healthz',
            timeoutMs: 1000,
          });
          if (health.status !== 200) return false;
          // Healthy is not yet working: the `default` ServiceAccount proves the controllers run.
          const account = await kubeRequest({
            server,
            path: '/api/v1/namespaces/default/serviceaccounts/default',
            caPem: pki.caPem,
            credentials: adminCredentials,
          });
          return account.status === 200;
        });
      });
    }

    const state = {
      kubeconfigPath,
      server,
      caPem: pki.caPem,
      users,
      runDir,
      kubernetesVersion: binaries.stamp.kubernetesVersion,
      ports: { ...ports },
      processes: this.processes.map((child) => ({ name: child.name, pid: child.pid })),
      watchdogPid: this.watchdog?.pid,
      startedAt: new Date(this.#startedAt).toISOString(),
    };
    const statePath = await writeControlPlaneState(state);
    this.progress({
      kind: 'end',
      step: 'control plane',
      elapsedMs: Date.now() - this.#startedAt,
      message: `ready at ${server}`,
    });
    return {
      ...toConnection(state),
      runDir,
      kubernetesVersion: state.kubernetesVersion,
      ports,
      processes: this.processes.map((child) => ({
        name: child.name,
        pid: child.pid,
        logPath: child.logPath,
      })),
      statePath,
      stop: () => this.stop(),
    };
  }

  async stopProcesses(): Promise<void> {
    // Controllers and apiserver first (they need etcd to shut down cleanly), etcd last.
    const etcd = this.processes.filter((child) => child.name === 'etcd');
    const others = this.processes.filter((child) => child.name !== 'etcd');
    await Promise.all(others.map((child) => child.stop(this.stopGraceMs)));
    await Promise.all(etcd.map((child) => child.stop(this.stopGraceMs)));
    this.processes.length = 0;
  }

  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      await this.stopProcesses();
      await this.watchdog?.disarm();
      await rm(this.runDir, { recursive: true, force: true });
    })();
    return this.#stopping;
  }
}
