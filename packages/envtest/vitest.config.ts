import { defineProject, mergeConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.js';

export default mergeConfig(
  sharedConfig,
  defineProject({
    test: {
      name: 'envtest',
      include: ['src/**/*.test.ts'],
      // Type tests (*.test-d.ts) run with `vitest run --typecheck`, which `npm test` does.
      typecheck: { include: ['src/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    },
  }),
);
