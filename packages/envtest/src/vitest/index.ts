// @k/envtest/vitest: per-file helpers for vitest (ESM only: vitest is). The run's plane comes from
// the global setup (`@k/envtest/vitest/global-setup`), or K_ENVTEST_KUBECONFIG.
import { afterAll, afterEach, beforeAll, beforeEach, inject } from 'vitest';
import { ENVTEST_KUBECONFIG_ENV } from '../constants.js';
import {
  RunnerFile,
  type UseEnvironmentOptions,
  type UseTestNamespaceOptions,
} from '../internal/runner.js';
import type { Environment, OwnedEnvironment } from '../types.js';
import { PROVIDED_KEY, type EnvtestProvidedContext } from './provided-context.js';

export type { UseEnvironmentOptions, UseTestNamespaceOptions } from '../internal/runner.js';
export type { EnvtestProvidedContext } from './provided-context.js';

// vitest evaluates this module once per test file (each file runs in a fresh worker by default),
// so this state is the file's.
const file = new RunnerFile({
  hooks: { beforeAll, afterAll, beforeEach, afterEach },
  sharedKubeconfig: () =>
    (inject(PROVIDED_KEY) as EnvtestProvidedContext | undefined)?.kubeconfigPath ??
    (process.env[ENVTEST_KUBECONFIG_ENV] || undefined),
  noSharedPlane:
    '[k-envtest] no control plane for the run: starting one for this file. Share one across files ' +
    "with globalSetup: ['@k/envtest/vitest/global-setup'] in the vitest config",
});

// The file's handle on the shared plane, however it was made (environment() connects lazily), is
// closed after everything else of the file: this hook is registered while the file imports this
// module, before any hook of the file itself, and vitest runs afterAll hooks last-registered first.
try {
  afterAll(() => file.closeShared());
} catch {
  // Imported outside a test file (a config or a script): there is no file to close after.
}

/**
 * useEnvironment gives the file the run's control plane. Call it at the top of a test file (or of
 * a `describe`); read its members inside tests and hooks (before the file's `beforeAll` they throw
 * `ERR_ENVTEST_NOT_RUNNING`). It connects to the plane of the global setup (or
 * `K_ENVTEST_KUBECONFIG`); without one it starts a plane for the file and prints a hint. After the
 * file, it closes the clientsets and proxies the file made; a plane it started is stopped.
 *
 * With `{ own: true, ...options }` the file gets a plane of its own, an {@link OwnedEnvironment}
 * (faults included), started in `beforeAll` and stopped in `afterAll`.
 */
export function useEnvironment(): Environment;
export function useEnvironment(options: UseEnvironmentOptions): OwnedEnvironment;
export function useEnvironment(options?: UseEnvironmentOptions): Environment | OwnedEnvironment {
  return file.useEnvironment(options);
}

/**
 * environment returns the run's shared plane inside a test or hook: the one `useEnvironment()`
 * of this file uses, else a connection made now to the global setup's plane
 * (`K_ENVTEST_KUBECONFIG`), closed after the file. Without a plane it throws
 * `ERR_ENVTEST_NOT_RUNNING`.
 */
export function environment(): Environment {
  return file.environment();
}

/**
 * useTestNamespace gives every test of the enclosing suite a fresh namespace (read `.name` inside
 * the test) on `options.environment` (default {@link environment}). After each test its deletion
 * starts; with `waitForDeletion: 'file'` (the default) the file's end waits until all are gone and
 * fails with `ERR_ENVTEST_NAMESPACE_STUCK`, naming what holds them, when one is not; `'test'`
 * waits after each test, `false` never. An operator that removes finalizers must still run then:
 * register its hooks before this call.
 */
export function useTestNamespace(options?: UseTestNamespaceOptions): { readonly name: string } {
  return file.useTestNamespace(options);
}
