import { defineGlobalSetup } from '@k/envtest/vitest/global-setup';
import { readControlPlaneState, resolveCacheRoot } from '@k/testenv';
import type { TestProject } from 'vitest/node';

/**
 * The e2e suite's global setup: @k/envtest's (one plane for the run, as users get it), pinned to
 * the built binaries of tools/testenv's cache (a shell's `KUBEBUILDER_ASSETS` would give an
 * apiserver and etcd only, without the controllers and nodes many tests need; and the engine's
 * cache root, so no second cold build). The layers below @k/envtest cannot import it (a cycle),
 * so their tests keep @k/testenv/vitest, which reads `K_TESTENV_KUBECONFIG` and `kTestenv`: both
 * name the same plane. A plane a developer started with `k-testenv up` is reused either way.
 */
const envtestSetup = defineGlobalSetup({ binaries: 'cache', cacheRoot: resolveCacheRoot() });

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const developerPlane = process.env.K_TESTENV_KUBECONFIG;
  if (developerPlane && !process.env.K_ENVTEST_KUBECONFIG) {
    process.env.K_ENVTEST_KUBECONFIG = developerPlane;
  }
  // Tests that start planes of their own (`useEnvironment({ own: true })`) find the same cache.
  process.env.K_ENVTEST_CACHE ??= resolveCacheRoot();
  const teardown = await envtestSetup(project);
  const kubeconfigPath = process.env.K_ENVTEST_KUBECONFIG ?? '';
  const state = readControlPlaneState(kubeconfigPath);
  process.env.K_TESTENV_KUBECONFIG = kubeconfigPath;
  project.provide('kTestenv', {
    kubeconfigPath,
    server: state.server,
    caPem: state.caPem,
    users: state.users,
    auditLogPath: state.auditLogPath,
  });
  return async () => {
    await teardown();
    if (!developerPlane) delete process.env.K_TESTENV_KUBECONFIG;
  };
}
