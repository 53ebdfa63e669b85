import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.js';

// Entries come from package.json's exports map (tsup.shared.ts). The group-version subpaths share
// one chunk: the root's getters need every group's definitions, and 23 files of about 1 KB cost
// the root import some 7 ms more than one file of 35 KB (a subpath loads the other groups'
// definitions with it, some 3 ms; bench/results/clientset.md).
export default defineConfig(
  packageBuild(import.meta.dirname, { oneSharedChunk: { among: /^[a-z]+\/v\w+\/index$/ } }),
);
