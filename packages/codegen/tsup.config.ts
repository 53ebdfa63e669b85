import { defineConfig } from 'tsup';

// Two builds side by side: the library (ESM and CommonJS with types, like every @k package) and
// the k-gen command (ESM only: it is run, never imported). Each cleans only its own files, since
// tsup runs them at the same time.
export default defineConfig([
  {
    entry: { index: 'src/index.ts', 'emit/index': 'src/emit/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: ['!cli/**'],
    target: 'node20',
    // Shared chunks keep one copy of each module across the two entry points.
    splitting: true,
  },
  {
    entry: { main: 'src/cli/main.ts' },
    outDir: 'dist/cli',
    format: ['esm'],
    sourcemap: true,
    clean: true,
    target: 'node20',
  },
]);
