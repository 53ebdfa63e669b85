import type { TestProject } from 'vitest/node';
import { readControlPlaneState, toConnection } from './connection.js';
import { startControlPlane } from './control-plane.js';
import { ControlPlaneError } from './errors.js';
import { kubeRequest } from './kube-request.js';
import { stderrProgress } from './progress.js';
import { KUBECONFIG_ENV } from './test-namespace.js';
import type {} from './vitest-context.js';

/**
 * setup is a vitest `globalSetup`: it starts one control plane for the whole run (building the
 * binaries first if the cache is empty), exposes it as `inject('kTestenv')` and as
 * `K_TESTENV_KUBECONFIG` (inherited by the test workers), and stops it in teardown. When
 * `K_TESTENV_KUBECONFIG` already points at a ready control plane (e.g. from `k-testenv up`), that one
 * is reused and left running.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const existing = process.env[KUBECONFIG_ENV];
  if (existing) {
    const connection = toConnection(readControlPlaneState(existing));
    const ready = await kubeRequest({
      server: connection.server,
      path: '/readyz',
      caPem: connection.caPem,
      credentials: connection.users.admin,
    }).catch((error: Error) => ({ status: 0, body: error.message }));
    if (ready.status !== 200) {
      throw new ControlPlaneError(
        'NOT_RUNNING',
        `${KUBECONFIG_ENV}=${existing} points at ${connection.server}, which is not ready (${ready.status} ${ready.body})`,
      );
    }
    process.stderr.write(
      `[k-testenv] reusing the control plane at ${connection.server} (${KUBECONFIG_ENV})\n`,
    );
    project.provide('kTestenv', connection);
    return async () => {};
  }
  const startedAt = Date.now();
  const controlPlane = await startControlPlane({ onProgress: stderrProgress });
  process.stderr.write(
    `[k-testenv] control plane ready in ${Date.now() - startedAt}ms: ${controlPlane.kubeconfigPath}\n`,
  );
  process.env[KUBECONFIG_ENV] = controlPlane.kubeconfigPath;
  project.provide('kTestenv', toConnection(controlPlane));
  return async () => {
    const stoppingAt = Date.now();
    await controlPlane.stop();
    delete process.env[KUBECONFIG_ENV];
    process.stderr.write(`[k-testenv] control plane stopped in ${Date.now() - stoppingAt}ms\n`);
  };
}
