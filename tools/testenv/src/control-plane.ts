import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ControlPlaneBinaries } from './binary-sources.js';
import { ensureBinaries } from './build.js';
import {
  toConnection,
  writeControlPlaneState,
  type ControlPlaneConnection,
  type ControlPlaneUsers,
} from './connection.js';
import type { ComponentPorts } from './component-flags.js';
import {
  apiServerSpec,
  controllerManagerSpec,
  createNodes,
  etcdSpec,
  installCrds,
  kwokSpec,
  schedulerSpec,
  type ComponentSpec,
} from './component-specs.js';
import { ControlPlaneError } from './errors.js';
import { freePorts } from './free-port.js';
import { kubeRequest, type KubeRequestCredentials } from './kube-request.js';
import { planeKubeconfig, writeKubeconfig } from './kubeconfig.js';
import { AUDIT_POLICY } from './audit-log.js';
import { FaultProxy } from './fault-proxy.js';
import { startManagedProcess, type ManagedProcess } from './managed-process.js';
import { waitUntilAccepting, waitUntilReady } from './wait-until-ready.js';
import { generatePki, type Pki } from './pki.js';
import { silentProgress, type ProgressSink } from './progress.js';
import { Watchdog } from './watchdog-client.js';

/** ControlPlanePorts are the loopback ports of a control plane. */
export type ControlPlanePorts = ComponentPorts;

/** ComponentName names one process of a control plane. */
export type ComponentName =
  'etcd' | 'kube-apiserver' | 'kube-controller-manager' | 'kube-scheduler' | 'kwok';

/** The order of components in `processes` (the start order; the controllers start side by side). */
export const COMPONENT_ORDER: readonly ComponentName[] = [
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'kwok',
];

/** StartControlPlaneOptions configure {@link startControlPlane}; every field is optional. */
export interface StartControlPlaneOptions {
  /** Appended to kube-apiserver's flags (a later flag wins), e.g. `--max-requests-inflight=1`. */
  readonly extraApiServerFlags?: readonly string[];
  /** Appended to kube-controller-manager's flags. */
  readonly extraControllerManagerFlags?: readonly string[];
  /** Appended to kube-scheduler's flags. */
  readonly extraSchedulerFlags?: readonly string[];
  /** Appended to etcd's flags. */
  readonly extraEtcdFlags?: readonly string[];
  /**
   * Start kube-controller-manager (default: when the binaries have it, which the cache's always
   * do). Asking for it when `binaries` lack it is COMPONENT_UNAVAILABLE. Without it, kube-apiserver
   * runs without garbage collection and without the ServiceAccount admission plugin.
   */
  readonly controllerManager?: boolean;
  /** Start kube-scheduler (default: when the binaries have it); as `controllerManager`. */
  readonly scheduler?: boolean;
  /**
   * How many fake nodes kwok simulates (default 2, or 0 when `binaries` have no kwok): scheduled
   * Pods become Running and Ready, Jobs complete, deletions finish, and the kubelet API (exec,
   * logs, …) answers as the kwok CRDs in the cluster say. 0 starts no kwok (Pods stay Pending).
   * Nodes without kwok in `binaries` are COMPONENT_UNAVAILABLE.
   */
  readonly nodes?: number;
  /** Appended to kwok's flags. */
  readonly extraKwokFlags?: readonly string[];
  /** Budget for the whole start once the binaries are there, ms (default 120 000). */
  readonly timeoutMs?: number;
  /** Receives progress of the build (if one is needed) and of each start step. */
  readonly onProgress?: ProgressSink;
  /** Force ports instead of free ones; a taken port then fails with PORT_IN_USE (no retry). */
  readonly ports?: Partial<ControlPlanePorts>;
  /**
   * Use these binaries instead of the cache (they are not verified here; {@link resolveBinaries}
   * checks them). The components they lack are off by default and unavailable.
   */
  readonly binaries?: ControlPlaneBinaries;
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

/** StartedProcess is one running process of a control plane. */
export interface StartedProcess {
  readonly name: ComponentName;
  readonly pid: number;
  readonly logPath: string;
}

/**
 * ControlPlane is a running etcd + kube-apiserver (+ kube-controller-manager, kube-scheduler) on
 * 127.0.0.1. `stop()` ends exactly its processes (SIGTERM, SIGKILL after the grace period) and
 * removes `runDir`; it is idempotent and safe to call concurrently.
 */
export interface ControlPlane extends ControlPlaneConnection {
  readonly runDir: string;
  readonly kubernetesVersion: string;
  readonly ports: ControlPlanePorts;
  /** The running processes, in start order (a restarted one has a new pid). */
  readonly processes: readonly StartedProcess[];
  /** The path of the state file (for `k-testenv down` and reuse through K_TESTENV_KUBECONFIG). */
  readonly statePath: string;
  /** The names of the fake nodes (empty with `nodes: 0`). */
  readonly nodes: readonly string[];
  /**
   * restart stops a component and starts it again in place: same flags, ports and data (etcd's
   * data directory stays), a new process; resolves when it is ready again.
   */
  restart(component: ComponentName): Promise<void>;
  /** stopComponent ends one component (SIGTERM, then SIGKILL after the grace period). */
  stopComponent(component: ComponentName): Promise<void>;
  /** startComponent starts a stopped component again, as {@link restart} does. */
  startComponent(component: ComponentName): Promise<void>;
  /**
   * compactEtcd compacts etcd's history up to its current revision and resolves with that
   * revision. Requests that reach etcd for an older resourceVersion then fail with 410 Gone; the
   * watch cache serves watches from memory, so a watch shows it only when the plane runs with
   * `--watch-cache=false` (or the resource is not cached).
   */
  compactEtcd(): Promise<number>;
  /** faultProxy starts (once) the plane's {@link FaultProxy} in front of kube-apiserver. */
  faultProxy(): Promise<FaultProxy>;
  stop(): Promise<void>;
}

/**
 * startControlPlane starts a fresh control plane for tests: it makes sure the binaries are built,
 * generates a PKI, starts etcd, kube-apiserver, kube-controller-manager and kube-scheduler on free
 * loopback ports, waits until they are ready, provisions the users `admin` (system:masters cert),
 * `alice` (cert, no rights) and `tester` (token bound to ClusterRole `edit`) and writes a
 * kubeconfig with one context per user (`admin` current). Everything lives in a fresh run
 * directory. On failure everything started so far is stopped and the run directory removed before
 * the ControlPlaneError is thrown; a watchdog process does the same if the calling process dies
 * (even by SIGKILL) without `stop()`.
 */
export async function startControlPlane(
  options: StartControlPlaneOptions = {},
): Promise<ControlPlane> {
  const progress = options.onProgress ?? silentProgress;
  // Refuse a component the given binaries lack before anything starts.
  if (options.binaries) componentPlan(options, options.binaries);
  const binariesPromise: Promise<ControlPlaneBinaries> = options.binaries
    ? Promise.resolve(options.binaries)
    : ensureBinaries({
        build: options.build,
        cacheRoot: options.cacheRoot,
        onProgress: progress,
        kwok: (options.nodes ?? DEFAULT_NODES) > 0,
      });
  // Surface a build failure as itself, even if PKI generation fails first.
  binariesPromise.catch(() => {});
  const runDir = await mkdtemp(join(options.runDirParent ?? tmpdir(), 'k-testenv-'));
  const run = new Run(runDir, progress, options.stopGraceMs ?? 10_000);
  try {
    run.watchdog = await Watchdog.start(runDir);
    // etcd needs no certificates: it starts while openssl makes them.
    const pki = run.step('certificates', () => generatePki(join(runDir, 'pki')));
    pki.catch(() => {});
    const [binaries] = await Promise.all([binariesPromise, mkdir(join(runDir, 'logs'))]);
    return await run.startWithPortRetries(binaries, pki, options);
  } catch (error) {
    await run.stop();
    throw error;
  }
}

/** DEFAULT_NODES is how many fake nodes a control plane has unless told otherwise. */
export const DEFAULT_NODES = 2;

/** ComponentPlan is which optional components a start runs. */
interface ComponentPlan {
  readonly controllerManager: boolean;
  readonly scheduler: boolean;
  readonly nodes: number;
}

/**
 * componentPlan applies the defaults (a component runs when the binaries have it; 2 nodes when
 * there is kwok) and refuses a component the binaries lack with COMPONENT_UNAVAILABLE.
 */
function componentPlan(
  options: StartControlPlaneOptions,
  binaries: ControlPlaneBinaries,
): ComponentPlan {
  const nodes = options.nodes ?? (binaries.kwok ? DEFAULT_NODES : 0);
  if (!Number.isInteger(nodes) || nodes < 0)
    throw new ControlPlaneError('INVALID_OPTIONS', `nodes must be a count, got ${nodes}`);
  const where = binaries.directory ?? dirname(binaries.kubeApiServer);
  const unavailable = (component: string, option: string) =>
    new ControlPlaneError(
      'COMPONENT_UNAVAILABLE',
      `${component} was asked for, but the binaries in ${where} have no ${component}; ` +
        `set ${option}, or use the built binaries (the cache has every component)`,
      { step: 'resolve binaries' },
    );
  if (options.controllerManager && !binaries.kubeControllerManager)
    throw unavailable('kube-controller-manager', 'controllerManager: false');
  if (options.scheduler && !binaries.kubeScheduler)
    throw unavailable('kube-scheduler', 'scheduler: false');
  if (nodes > 0 && !binaries.kwok) throw unavailable(`kwok (for nodes: ${nodes})`, 'nodes: 0');
  return {
    controllerManager: options.controllerManager ?? binaries.kubeControllerManager !== undefined,
    scheduler: options.scheduler ?? binaries.kubeScheduler !== undefined,
    nodes,
  };
}

class Run {
  readonly processes: ManagedProcess[] = [];
  readonly specs = new Map<ComponentName, ComponentSpec>();
  #faultProxy: Promise<FaultProxy> | undefined;
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

  /** startComponent spawns `spec` and waits until it is ready (or fails, see waitUntilReady). */
  async startComponent(spec: ComponentSpec, deadline: number): Promise<ManagedProcess> {
    const { child, ready } = await this.launchComponent(spec, deadline);
    await ready;
    return child;
  }

  /**
   * launchComponent spawns `spec` and returns the process at once, with its readiness (or failure,
   * see waitUntilReady) as a promise: the step `start <name>` ends when it is ready.
   */
  async launchComponent(
    spec: ComponentSpec,
    deadline: number,
  ): Promise<{ child: ManagedProcess; ready: Promise<void> }> {
    this.specs.set(spec.name, spec);
    const step = `start ${spec.name}`;
    const startedAt = Date.now();
    this.progress({ kind: 'start', step, elapsedMs: 0, message: 'started' });
    const child = await startManagedProcess(
      spec.name,
      spec.command,
      spec.args,
      join(this.runDir, 'logs', `${spec.name}.log`),
    );
    this.processes.push(child);
    this.watchdog?.watch(child.pid);
    const ready = waitUntilReady(child, deadline, spec.ready, spec.diagnose).then(() =>
      this.progress({ kind: 'end', step, elapsedMs: Date.now() - startedAt, message: 'done' }),
    );
    return { child, ready };
  }

  async startWithPortRetries(
    binaries: ControlPlaneBinaries,
    pki: Promise<Pki>,
    options: StartControlPlaneOptions,
  ): Promise<ControlPlane> {
    const forced = options.ports ?? {};
    const attempts = Object.keys(forced).length > 0 ? 1 : Math.max(1, options.portAttempts ?? 3);
    for (let attempt = 1; ; attempt++) {
      const [etcd, etcdPeer, apiServer, controllerManager, scheduler, kubelet] = await freePorts(6);
      const ports: ControlPlanePorts = {
        etcd: forced.etcd ?? (etcd as number),
        etcdPeer: forced.etcdPeer ?? (etcdPeer as number),
        apiServer: forced.apiServer ?? (apiServer as number),
        controllerManager: forced.controllerManager ?? (controllerManager as number),
        scheduler: forced.scheduler ?? (scheduler as number),
        kubelet: forced.kubelet ?? (kubelet as number),
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
    binaries: ControlPlaneBinaries,
    pkiPromise: Promise<Pki>,
    ports: ControlPlanePorts,
    options: StartControlPlaneOptions,
  ): Promise<ControlPlane> {
    const deadline = Date.now() + (options.timeoutMs ?? 120_000);
    const runDir = this.runDir;
    const { controllerManager, scheduler, nodes: nodeCount } = componentPlan(options, binaries);
    const etcdUrl = `http://127.0.0.1:${ports.etcd}`;
    const etcd = await this.launchComponent(
      etcdSpec(binaries, runDir, ports, options.extraEtcdFlags),
      deadline,
    );
    etcd.ready.catch(() => {});
    // kube-apiserver retries etcd by itself, so it starts once etcd's port accepts connections
    // rather than after etcd is healthy: their start-ups overlap. etcd's failure still ends the start.
    await Promise.race([etcd.ready, waitUntilAccepting(ports.etcd, etcd.child, deadline)]);

    const pki = await pkiPromise;
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
    const kubeconfig = planeKubeconfig({ server, caPem: pki.caPem, users });
    await writeKubeconfig(kubeconfigPath, kubeconfig);
    const auditPolicyPath = join(runDir, 'audit-policy.yaml');
    const auditLogPath = join(runDir, 'audit.log');
    await writeFile(auditPolicyPath, AUDIT_POLICY);

    const asAdmin = {
      server,
      caPem: pki.caPem,
      credentials: users.admin as KubeRequestCredentials,
    };
    const apiServerReady = this.startComponent(
      apiServerSpec(binaries.kubeApiServer, asAdmin, {
        runDir,
        ports,
        pki,
        tokenFilePath: tokensPath,
        controllerManager,
        auditPolicyPath,
        auditLogPath,
        extra: options.extraApiServerFlags,
      }),
      deadline,
    );
    await Promise.all([etcd.ready, apiServerReady]);

    await this.step('provision users', async () => {
      const response = await kubeRequest({
        ...asAdmin,
        path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
        method: 'POST',
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
          { step: 'provision users', logTail: response.body },
        );
      }
    });

    // The controllers do not depend on each other: start them side by side.
    const controllerOptions = { runDir, ports, pki, kubeconfigPath, asAdmin };
    const controllers: Promise<unknown>[] = [];
    if (controllerManager && binaries.kubeControllerManager) {
      controllers.push(
        this.startComponent(
          controllerManagerSpec(binaries.kubeControllerManager, {
            ...controllerOptions,
            extra: options.extraControllerManagerFlags,
          }),
          deadline,
        ),
      );
    }
    if (scheduler && binaries.kubeScheduler) {
      controllers.push(
        this.startComponent(
          schedulerSpec(binaries.kubeScheduler, {
            ...controllerOptions,
            extra: options.extraSchedulerFlags,
          }),
          deadline,
        ),
      );
    }
    const nodes = Array.from({ length: nodeCount }, (_, index) => `k-testenv-node-${index}`);
    if (binaries.kwok && nodes.length > 0) {
      const kwok = binaries.kwok;
      // kwok's informers retry until the CRDs are served, so it need not wait for them; the start
      // does, so a test can apply an Exec or Logs object at once.
      controllers.push(
        this.step('install kwok CRDs', () => installCrds(asAdmin, kwok.crds, deadline)),
      );
      controllers.push(
        (async () => {
          await this.step('create nodes', () => createNodes(asAdmin, nodes));
          await this.startComponent(
            kwokSpec(kwok, nodes, { ...controllerOptions, extra: options.extraKwokFlags }),
            deadline,
          );
        })(),
      );
    }
    await settleAll(controllers);

    const state = {
      kubeconfigPath,
      server,
      caPem: pki.caPem,
      users,
      auditLogPath,
      runDir,
      kubernetesVersion: binaries.kubernetesVersion,
      ports: { ...ports },
      nodes,
      processes: this.ordered().map((child) => ({ name: child.name, pid: child.pid })),
      watchdogPid: this.watchdog?.pid,
      startedAt: new Date(this.#startedAt).toISOString(),
    };
    const statePath = await writeControlPlaneState(state);
    // A restarted process has a new pid: `down` and the watchdog must see it.
    const rewriteState = () =>
      writeControlPlaneState({
        ...state,
        processes: this.ordered().map((child) => ({ name: child.name, pid: child.pid })),
      });
    this.progress({
      kind: 'end',
      step: 'control plane',
      elapsedMs: Date.now() - this.#startedAt,
      message: `ready at ${server}`,
    });
    const ordered = () => this.ordered();
    return {
      ...toConnection(state),
      runDir,
      kubernetesVersion: state.kubernetesVersion,
      ports,
      get processes() {
        return ordered().map((child) => ({
          name: child.name as ComponentName,
          pid: child.pid,
          logPath: child.logPath,
        }));
      },
      statePath,
      nodes,
      restart: async (component) => {
        await this.stopComponent(component);
        await this.restartComponent(component, options.timeoutMs);
        await rewriteState();
      },
      stopComponent: async (component) => {
        await this.stopComponent(component);
        await rewriteState();
      },
      startComponent: async (component) => {
        await this.restartComponent(component, options.timeoutMs);
        await rewriteState();
      },
      compactEtcd: () => compactEtcd(etcdUrl),
      faultProxy: () =>
        (this.#faultProxy ??= FaultProxy.start(
          ports.apiServer,
          join(runDir, 'kubeconfig-fault-proxy'),
          kubeconfig,
        )),
      stop: () => this.stop(),
    };
  }

  /** ordered returns the running processes in {@link COMPONENT_ORDER}. */
  ordered(): ManagedProcess[] {
    const rank = (child: ManagedProcess) => COMPONENT_ORDER.indexOf(child.name as ComponentName);
    return [...this.processes].sort((a, b) => rank(a) - rank(b));
  }

  /** stopComponent ends the running process of `name` (nothing when it is not running). */
  async stopComponent(name: ComponentName): Promise<void> {
    this.#spec(name);
    const running = this.processes.filter((child) => child.name === name);
    await Promise.all(running.map((child) => child.stop(this.stopGraceMs)));
    for (const child of running) this.processes.splice(this.processes.indexOf(child), 1);
  }

  /** restartComponent starts `name` again with the flags of its first start. */
  async restartComponent(name: ComponentName, timeoutMs = 120_000): Promise<void> {
    const spec = this.#spec(name);
    if (this.processes.some((child) => child.name === name))
      throw new ControlPlaneError('INVALID_OPTIONS', `${name} is already running`);
    await this.startComponent(spec, Date.now() + timeoutMs);
  }

  #spec(name: ComponentName): ComponentSpec {
    const spec = this.specs.get(name);
    if (!spec)
      throw new ControlPlaneError('INVALID_OPTIONS', `${name} is not part of this control plane`);
    return spec;
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
      await (await this.#faultProxy?.catch(() => undefined))?.close();
      await this.stopProcesses();
      await this.watchdog?.disarm();
      await rm(this.runDir, { recursive: true, force: true });
    })();
    return this.#stopping;
  }
}

/**
 * compactEtcd asks etcd (its JSON gateway) for the current revision and compacts everything
 * before it, physically, so no member serves the old revisions any more.
 */
async function compactEtcd(etcdUrl: string): Promise<number> {
  const range = await kubeRequest({
    server: etcdUrl,
    path: '/v3/kv/range',
    method: 'POST',
    body: { key: Buffer.from('/').toString('base64'), limit: 1 },
  });
  const revision = Number(
    (JSON.parse(range.body) as { header?: { revision?: string } }).header?.revision,
  );
  if (range.status !== 200 || !Number.isInteger(revision) || revision < 1) {
    throw new ControlPlaneError('PROVISION_FAILED', `etcd gave no revision (${range.status})`, {
      step: 'compact etcd',
      logTail: range.body,
    });
  }
  const compacted = await kubeRequest({
    server: etcdUrl,
    path: '/v3/kv/compaction',
    method: 'POST',
    body: { revision: String(revision), physical: true },
    timeoutMs: 30_000,
  });
  if (compacted.status !== 200) {
    throw new ControlPlaneError(
      'PROVISION_FAILED',
      `etcd compaction returned ${compacted.status}`,
      {
        step: 'compact etcd',
        logTail: compacted.body,
      },
    );
  }
  return revision;
}

/** settleAll waits for every promise and then throws the first rejection, if any. */
async function settleAll(promises: readonly Promise<unknown>[]): Promise<void> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
}
