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
    // Some unit tests run child `node` programs (examples, process lifetime); on a loaded
    // two-core machine one start can take several seconds, so 5 s would fail them spuriously.
    testTimeout: 30_000,
  },
});
