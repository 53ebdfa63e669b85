import { defineConfig } from 'tsup';

// An application, not a library: ESM only, no declarations; the image runs dist/cli.js through
// bin/demo-operator.mjs (the @k packages stay external dependencies).
export default defineConfig({
  entry: { cli: 'src/cli.ts', index: 'src/index.ts' },
  format: ['esm'],
  sourcemap: true,
  clean: true,
  target: 'node22',
  splitting: true,
});
