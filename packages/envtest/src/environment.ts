import path from 'node:path';
import {
  COMPONENT_ORDER,
  readControlPlaneState,
  startControlPlane,
  type ControlPlaneState,
} from '@k/testenv';
import { ENVTEST_KUBECONFIG_ENV } from './constants.js';
import { applyCrds, readCrds } from './crds.js';
import { EnvtestError, toEnvtestError } from './errors.js';
import { aggregateClusterRoles } from './internal/aggregate-cluster-roles.js';
import { findBinaries } from './internal/binaries.js';
import type { EnvironmentContext } from './internal/context.js';
import { EnvironmentHandle, OwnedEnvironmentHandle } from './internal/environment-handle.js';
import { planComponents, resolveEnvironmentOptions } from './options.js';
import type { Environment, EnvironmentOptions, OwnedEnvironment } from './types.js';

/** HOW_TO_START is what a message says when there is no plane to connect to. */
const HOW_TO_START =
  'start one with startEnvironment(), the vitest global setup (@k/envtest/vitest/global-setup), ' +
  '`npx k-envtest run -- <command>`, or `npx k-envtest up` and export the K_ENVTEST_KUBECONFIG it prints';

/** contextOf makes the context of one handle from the plane's state. */
function contextOf(state: ControlPlaneState, owned: boolean): EnvironmentContext {
  const running = new Set(state.processes.map((process) => process.name));
  return {
    state,
    runDir: state.runDir,
    usersDir: path.join(state.runDir, 'envtest-users'),
    components: COMPONENT_ORDER.filter((component) => running.has(component)),
    owned,
    closeables: [],
  };
}

/**
 * startEnvironment starts a control plane this process owns: it finds the binaries (an explicit
 * directory, `KUBEBUILDER_ASSETS`, the cache, or a Go build, with progress on stderr), starts etcd,
 * kube-apiserver and, when the binaries have them, kube-controller-manager, kube-scheduler and kwok
 * nodes on free loopback ports, waits until they are ready, and installs `crds`. Without
 * kube-controller-manager it fills the aggregated ClusterRoles (`edit`, `view`, `admin`) once, as
 * that controller would, so `editor` can edit. Everything lives in
 * a fresh run directory; a watchdog process ends the plane and removes the directory if this process
 * dies without `stop()` (SIGKILL included). Every failure is an {@link EnvtestError}; a failed start
 * leaves nothing running.
 */
export async function startEnvironment(options?: EnvironmentOptions): Promise<OwnedEnvironment> {
  const resolved = resolveEnvironmentOptions(options);
  // CRD files are read and checked before anything starts: a typo fails in milliseconds.
  const crds = resolved.crds === undefined ? undefined : await readCrds(resolved.crds);
  let environment: OwnedEnvironmentHandle;
  try {
    const binaries = await findBinaries(resolved);
    const plan = planComponents(resolved, binaries.components, binaries.where);
    const plane = await startControlPlane({
      binaries: binaries.engine,
      cacheRoot: resolved.cacheRoot,
      build: resolved.build,
      controllerManager: plan.controllerManager,
      scheduler: plan.scheduler,
      nodes: plan.nodes,
      extraApiServerFlags: resolved.extraApiServerFlags,
      extraControllerManagerFlags: resolved.extraControllerManagerFlags,
      extraSchedulerFlags: resolved.extraSchedulerFlags,
      extraEtcdFlags: resolved.extraEtcdFlags,
      extraKwokFlags: resolved.extraKwokFlags,
      timeoutMs: resolved.timeoutMs,
      stopGraceMs: resolved.stopGraceMs,
      onProgress: resolved.startProgress,
    });
    try {
      const state = readControlPlaneState(plane.kubeconfigPath);
      environment = new OwnedEnvironmentHandle(contextOf(state, true), plane, binaries.description);
    } catch (error) {
      await plane.stop();
      throw error;
    }
  } catch (error) {
    throw toEnvtestError(error);
  }
  try {
    if (!environment.components.includes('kube-controller-manager')) {
      await provision('aggregate cluster roles', async () =>
        aggregateClusterRoles(await environment.admin.clientset()),
      );
    }
    if (crds !== undefined) await applyCrds(environment.admin, crds, resolved.crds?.timeoutMs);
  } catch (error) {
    await environment.stop().catch(() => undefined);
    throw error;
  }
  return environment;
}

/** provision runs a step of setting a new plane up; a failure is ERR_ENVTEST_PROVISION_FAILED. */
async function provision(step: string, action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (error) {
    throw new EnvtestError(
      'ERR_ENVTEST_PROVISION_FAILED',
      `${step} failed: ${error instanceof Error ? error.message : String(error)}`,
      { step, cause: error },
    );
  }
}

/** isAlive reports whether a process exists (EPERM: it does, as another user's). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * connectEnvironment connects to a control plane another process owns: the vitest global setup,
 * `k-envtest run` or `k-envtest up`, by the kubeconfig path it wrote (default
 * `K_ENVTEST_KUBECONFIG`). It reads the plane's state file beside the kubeconfig and starts
 * nothing; `close()` closes what this handle made and leaves the plane running. No plane there is
 * `ERR_ENVTEST_NOT_RUNNING`.
 */
export function connectEnvironment(kubeconfigPath?: string): Environment {
  const given = kubeconfigPath ?? process.env[ENVTEST_KUBECONFIG_ENV];
  if (given === undefined || given === '') {
    throw new EnvtestError(
      'ERR_ENVTEST_NOT_RUNNING',
      `no control plane to connect to: no kubeconfig path was given and ${ENVTEST_KUBECONFIG_ENV} is not set; ${HOW_TO_START}`,
      { step: 'connect' },
    );
  }
  let state: ControlPlaneState;
  try {
    state = readControlPlaneState(given);
  } catch (error) {
    throw new EnvtestError(
      'ERR_ENVTEST_NOT_RUNNING',
      `${given} is not the kubeconfig of a running k-envtest control plane (no readable control-plane.json beside it); ${HOW_TO_START}`,
      { step: 'connect', cause: error },
    );
  }
  const apiServer = state.processes.find((process) => process.name === 'kube-apiserver');
  if (apiServer !== undefined && !isAlive(apiServer.pid)) {
    throw new EnvtestError(
      'ERR_ENVTEST_NOT_RUNNING',
      `the control plane of ${given} is not running (its kube-apiserver, pid ${apiServer.pid}, is gone); ${HOW_TO_START}`,
      { step: 'connect' },
    );
  }
  return new EnvironmentHandle(contextOf(state, false));
}
