import { defineProject, mergeConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.js';

export default mergeConfig(
  sharedConfig,
  defineProject({ test: { name: 'codegen', include: ['src/**/*.test.ts'], testTimeout: 60_000 } }),
);
