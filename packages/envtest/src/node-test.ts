// @k/envtest/node-test: per-file helpers for node:test (ESM and CommonJS). `node --test` runs each
// file in a process of its own and Node 20 has no global setup, so the run's plane comes from
// K_ENVTEST_KUBECONFIG (`k-envtest run -- node --test`, `k-envtest up`), else each file starts one.
import { after, afterEach, before, beforeEach } from 'node:test';
import { ENVTEST_KUBECONFIG_ENV } from './constants.js';
import {
  RunnerFile,
  type UseEnvironmentOptions,
  type UseTestNamespaceOptions,
} from './internal/runner.js';
import type { Environment, OwnedEnvironment } from './types.js';

export type { UseEnvironmentOptions, UseTestNamespaceOptions } from './internal/runner.js';

// node:test hooks take (context, done) arguments; ours take none, so wrap them.
const file = new RunnerFile({
  hooks: {
    beforeAll: (hook) => before(() => hook()),
    afterAll: (hook) => after(() => hook()),
    beforeEach: (hook) => beforeEach(() => hook()),
    afterEach: (hook) => afterEach(() => hook()),
  },
  sharedKubeconfig: () => process.env[ENVTEST_KUBECONFIG_ENV] || undefined,
  // node:test runs after hooks first-registered first, so no hook of this module could run last.
  closeWithNamespaces: true,
});

/**
 * useEnvironment gives the file a control plane: the one `K_ENVTEST_KUBECONFIG` names (`k-envtest
 * run`, `k-envtest up`), else one started for this file. Call it at the top of a test file; read
 * its members inside tests and hooks (before the file's `before` hooks ran they throw
 * `ERR_ENVTEST_NOT_RUNNING`). After the file it waits for the namespaces of `useTestNamespace`,
 * then closes what the file made; a plane it started is stopped.
 *
 * With `{ own: true, ...options }` the file gets a plane of its own, an {@link OwnedEnvironment}
 * (faults included), whatever `K_ENVTEST_KUBECONFIG` says.
 */
export function useEnvironment(): Environment;
export function useEnvironment(options: UseEnvironmentOptions): OwnedEnvironment;
export function useEnvironment(options?: UseEnvironmentOptions): Environment | OwnedEnvironment {
  return file.useEnvironment(options);
}

/**
 * useTestNamespace gives every test of the enclosing suite a fresh namespace (read `.name` inside
 * the test) on `options.environment` (default the file's `useEnvironment()` plane, or
 * `K_ENVTEST_KUBECONFIG`'s). After each test its deletion starts; with `waitForDeletion: 'file'`
 * (the default) the file's end waits until all are gone and fails with
 * `ERR_ENVTEST_NAMESPACE_STUCK`, naming what holds them, when one is not; `'test'` waits after
 * each test, `false` never.
 */
export function useTestNamespace(options?: UseTestNamespaceOptions): { readonly name: string } {
  return file.useTestNamespace(options);
}
