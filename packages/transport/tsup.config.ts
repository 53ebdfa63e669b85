import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.js';

// Entries come from package.json's exports map (tsup.shared.ts); its subpaths split the API, so one
// shared chunk (the root loads nearly all of it).
export default defineConfig(packageBuild(import.meta.dirname, { oneSharedChunk: true }));
