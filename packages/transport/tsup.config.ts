import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.js';

// Entries come from package.json's exports map (tsup.shared.ts); its subpaths split the API, so one
// shared chunk (the root loads nearly all of it). shims: `import.meta.url` in the CommonJS build
// (undici-parts.ts loads undici's parts with createRequire).
export default defineConfig(
  packageBuild(import.meta.dirname, { oneSharedChunk: true, shims: true }),
);
