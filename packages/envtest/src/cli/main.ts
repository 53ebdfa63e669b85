// k-envtest: the command line of @k/envtest (build, up, status, down, run, assets). One
// implementation serves it and this repository's private k-testenv; this file gives it the public
// identity: its name, the `K_ENVTEST_*` variables and the public cache root.
import { fileURLToPath } from 'node:url';
import { runCli } from '@k/testenv';
import { resolveEnvtestCacheRoot } from '../options.js';

// The executable `up` forks to serve a plane in the background: bin/ sits two levels above both
// src/cli/main.ts (in the workspace) and dist/cli/main.js (installed).
const launcher = fileURLToPath(new URL('../../bin/k-envtest.mjs', import.meta.url));

process.exitCode = await runCli(process.argv.slice(2), {
  name: 'k-envtest',
  launcher,
  cacheRoot: resolveEnvtestCacheRoot(),
  envPrefix: 'K_ENVTEST',
  // As the library's default: KUBEBUILDER_ASSETS and TEST_ASSET_* first, then the cache.
  binaries: 'auto',
});
