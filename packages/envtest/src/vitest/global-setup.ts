// @k/envtest/vitest/global-setup: one control plane for a vitest run (ESM only: vitest is).
import { kubeRequest, readControlPlaneState } from '@k/testenv';
import type { TestProject } from 'vitest/node';
import { ENVTEST_KUBECONFIG_ENV } from '../constants.js';
import { startEnvironment } from '../environment.js';
import { EnvtestError } from '../errors.js';
import type { EnvironmentOptions } from '../types.js';
import { PROVIDED_KEY } from './provided-context.js';

/**
 * RUN_DIR_ENV names the variable the global setup gives the test workers: the run directory of the
 * plane it started. The plane's watchdog also ends the processes that carry it, so a SIGKILLed
 * vitest leaves no worker behind.
 */
const RUN_DIR_ENV = 'K_ENVTEST_RUN_DIR';

/** GlobalSetupOptions configure {@link defineGlobalSetup}: the plane's options, and `reuse`. */
export type GlobalSetupOptions = EnvironmentOptions & {
  /**
   * reuse: when `K_ENVTEST_KUBECONFIG` names a ready plane (`k-envtest up`), use it and leave it
   * running (default true). With `false` the run always starts its own.
   */
  readonly reuse?: boolean | undefined;
};

/** GlobalSetup is a vitest `globalSetup` function: it returns the teardown. */
export type GlobalSetup = (project: TestProject) => Promise<() => Promise<void>>;

/**
 * defineGlobalSetup makes a vitest global setup that starts one control plane for the run with
 * `options` (building the binaries first when there are none), or reuses the ready plane that
 * `K_ENVTEST_KUBECONFIG` names (unless `reuse: false`). The workers find it through
 * `inject('kEnvtest')` and `K_ENVTEST_KUBECONFIG`, which `useEnvironment()` and `environment()` of
 * `@k/envtest/vitest` read. The teardown stops the plane it started and never one it reused.
 *
 * ```ts
 * // envtest.setup.ts, named in vitest.config.ts: globalSetup: ['./envtest.setup.ts']
 * export default defineGlobalSetup({ nodes: 0, crds: { paths: ['config/crd/bases'] } });
 * ```
 */
export function defineGlobalSetup(options: GlobalSetupOptions = {}): GlobalSetup {
  const { reuse = true, ...environmentOptions } = options;
  return async (project) => {
    const existing = process.env[ENVTEST_KUBECONFIG_ENV];
    if (reuse && existing) {
      await assertReady(existing);
      process.stderr.write(
        `[k-envtest] reusing the control plane of ${ENVTEST_KUBECONFIG_ENV}=${existing}\n`,
      );
      project.provide(PROVIDED_KEY, { kubeconfigPath: existing });
      return async () => {};
    }
    const startedAt = Date.now();
    const environment = await startEnvironment(environmentOptions);
    process.stderr.write(
      `[k-envtest] control plane ready in ${Date.now() - startedAt}ms: ${environment.kubeconfigPath}\n`,
    );
    const previous = { kubeconfig: existing, runDir: process.env[RUN_DIR_ENV] };
    // Set before vitest starts the workers, which inherit them.
    process.env[ENVTEST_KUBECONFIG_ENV] = environment.kubeconfigPath;
    process.env[RUN_DIR_ENV] = environment.runDir;
    project.provide(PROVIDED_KEY, { kubeconfigPath: environment.kubeconfigPath });
    return async () => {
      try {
        await environment.stop();
      } finally {
        restore(ENVTEST_KUBECONFIG_ENV, previous.kubeconfig);
        restore(RUN_DIR_ENV, previous.runDir);
      }
    };
  };
}

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

/** assertReady throws `ERR_ENVTEST_NOT_RUNNING` unless the plane of `kubeconfigPath` answers /readyz. */
async function assertReady(kubeconfigPath: string): Promise<void> {
  let state;
  try {
    state = readControlPlaneState(kubeconfigPath);
  } catch (error) {
    throw new EnvtestError(
      'ERR_ENVTEST_NOT_RUNNING',
      `${ENVTEST_KUBECONFIG_ENV}=${kubeconfigPath} names no running control plane (no readable ` +
        `control-plane.json beside it); unset it, or start one with \`npx k-envtest up\``,
      { cause: error },
    );
  }
  const ready = await kubeRequest({
    server: state.server,
    path: '/readyz',
    caPem: state.caPem,
    credentials: state.users.admin,
  }).catch((error: Error) => ({ status: 0, body: error.message }));
  if (ready.status !== 200) {
    throw new EnvtestError(
      'ERR_ENVTEST_NOT_RUNNING',
      `${ENVTEST_KUBECONFIG_ENV}=${kubeconfigPath} names the control plane at ${state.server}, ` +
        `which is not ready (${ready.status === 0 ? ready.body : `/readyz answered ${ready.status}`}); ` +
        `unset it, or start one with \`npx k-envtest up\``,
    );
  }
}

/**
 * setup is the default global setup, `globalSetup: ['@k/envtest/vitest/global-setup']`:
 * {@link defineGlobalSetup} with the default options.
 */
const setup: GlobalSetup = defineGlobalSetup();
export default setup;
