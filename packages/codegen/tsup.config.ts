import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.js';

// Two builds side by side: the library (entries from package.json's exports map, like every @k
// package) and the k-gen command (ESM only: it is run, never imported). Each cleans only its own
// files, since tsup runs them at the same time.
export default defineConfig([
  packageBuild(import.meta.dirname, { clean: ['!cli/**'] }),
  {
    entry: { main: 'src/cli/main.ts' },
    outDir: 'dist/cli',
    format: ['esm'],
    sourcemap: true,
    clean: true,
    target: 'node22',
  },
]);
