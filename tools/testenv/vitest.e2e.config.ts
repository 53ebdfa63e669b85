import { defineProject, mergeConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.js';

// End-to-end tests of tools/testenv itself: one shared control plane from the global setup (the
// same one other packages' e2e tests get), plus tests that start and break their own.
export default mergeConfig(
  sharedConfig,
  defineProject({
    test: {
      name: 'testenv-e2e',
      include: ['e2e/**/*.e2e.test.ts'],
      globalSetup: ['./src/vitest-global-setup.ts'],
      testTimeout: 120_000,
      hookTimeout: 120_000,
    },
  }),
);
