import { defineConfig } from 'tsup';

// An application, not a library: one ESM bundle of the command and the library entry, run by
// bin/demo-operator.mjs in the image (the @k packages stay external dependencies).
export default defineConfig({
  entry: { cli: 'src/cli.ts', index: 'src/index.ts' },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts' } },
  sourcemap: true,
  clean: true,
  target: 'node20',
  splitting: true,
});
