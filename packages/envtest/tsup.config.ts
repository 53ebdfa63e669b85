import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.js';

const ENGINE_WATCHDOG = path.join(import.meta.dirname, '../../tools/testenv/src/watchdog.mjs');

// Two builds side by side: the library (entries from package.json's exports map) with the private
// control-plane engine of tools/testenv bundled in (docs/decisions/0022), and the k-envtest
// command (ESM only: it is run, never imported). The engine finds its watchdog script beside the
// module that holds it, `dist/`, so the script is copied there; `shims` gives the CommonJS build
// an `import.meta.url`.
export default defineConfig([
  packageBuild(import.meta.dirname, {
    clean: ['!cli/**'],
    noExternal: [/^@k\/testenv/],
    shims: true,
    // `node:test` exists only with its prefix: tsup's default removal would make it `test`.
    removeNodeProtocol: false,
    onSuccess: async () => {
      await copyFile(ENGINE_WATCHDOG, path.join(import.meta.dirname, 'dist/watchdog.mjs'));
    },
  }),
  {
    entry: { main: 'src/cli/main.ts' },
    outDir: 'dist/cli',
    format: ['esm'],
    sourcemap: true,
    clean: true,
    target: 'node22',
    removeNodeProtocol: false,
    noExternal: [/^@k\/testenv/],
    onSuccess: async () => {
      await copyFile(ENGINE_WATCHDOG, path.join(import.meta.dirname, 'dist/cli/watchdog.mjs'));
    },
  },
]);
