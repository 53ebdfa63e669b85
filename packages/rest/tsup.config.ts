import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.js';

// Entries come from package.json's exports map (tsup.shared.ts); its subpaths split the API, so one
// shared chunk (the root loads all of it), but for errors, which loads no HTTP client.
export default defineConfig(
  packageBuild(import.meta.dirname, { oneSharedChunk: { except: ['errors'] } }),
);
