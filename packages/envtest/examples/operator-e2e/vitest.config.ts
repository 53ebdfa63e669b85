// The example project's vitest configuration: one control plane for the run, from @k/envtest's
// global setup (built binaries, or KUBEBUILDER_ASSETS when set). Only the TypeScript test files
// run (tsc emits .js files beside them for node:test).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.e2e.test.ts'],
    exclude: ['**/node_modules/**'],
    globalSetup: ['@k/envtest/vitest/global-setup'],
    // Above eventually's 10 s, so a failed assertion is what a slow test reports.
    testTimeout: 30_000,
    // A namespace's deletion waits up to 60 s for finalizers before it names what is stuck.
    hookTimeout: 90_000,
  },
});
