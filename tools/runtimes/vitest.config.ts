import { defineProject, mergeConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.js';

export default mergeConfig(
  sharedConfig,
  defineProject({
    // Real installs from the registry: a cold one takes tens of seconds on a loaded machine.
    test: { name: 'runtimes', include: ['src/**/*.test.ts'], testTimeout: 300_000 },
  }),
);
