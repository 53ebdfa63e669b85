import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

/**
 * Shared by every package's vitest config: resolve workspace packages to their `src/`
 * through the `@k/source` export condition, so tests never wait on a build.
 */
export const sharedConfig = defineConfig({
  resolve: { conditions: ['@k/source', ...defaultServerConditions] },
  ssr: { resolve: { conditions: ['@k/source', ...defaultServerConditions] } },
  test: {
    environment: 'node',
    restoreMocks: true,
  },
});
