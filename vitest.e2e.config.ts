import { defaultServerConditions } from 'vite';
import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedConfig } from './vitest.shared.js';

/**
 * The end-to-end suite: every `e2e/**\/*.e2e.test.ts` of every project, against ONE real control
 * plane started (and built, if its cache is empty) by @k/envtest's global setup (vitest.e2e.setup.ts).
 */
export default mergeConfig(
  sharedConfig,
  defineConfig({
    // The global setup runs in vitest's own environment, which takes no `resolve.conditions`:
    // without this it would load @k/envtest's dist/ (stale or missing), not its src/.
    environments: {
      __vitest__: { resolve: { conditions: ['@k/source', ...defaultServerConditions] } },
    },
    test: {
      name: 'e2e',
      include: ['{packages,apps,tools}/*/e2e/**/*.e2e.test.ts'],
      globalSetup: ['vitest.e2e.setup.ts'],
      testTimeout: 120_000,
      hookTimeout: 120_000,
      // Two cores: more workers only contend with the control plane for CPU.
      maxWorkers: 2,
    },
  }),
);
