import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedConfig } from './vitest.shared.js';

/**
 * The end-to-end suite: every `e2e/**\/*.e2e.test.ts` of every project, against ONE real control
 * plane started (and built, if its cache is empty) by tools/testenv's global setup.
 */
export default mergeConfig(
  sharedConfig,
  defineConfig({
    test: {
      name: 'e2e',
      include: ['{packages,apps,tools}/*/e2e/**/*.e2e.test.ts'],
      globalSetup: ['tools/testenv/src/vitest-global-setup.ts'],
      testTimeout: 120_000,
      hookTimeout: 120_000,
      // Two cores: more workers only contend with the control plane for CPU.
      maxWorkers: 2,
    },
  }),
);
