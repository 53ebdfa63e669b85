import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.js';

// Entries come from package.json's exports map (tsup.shared.ts), plus the k-config command's main.
export default defineConfig(
  packageBuild(import.meta.dirname, { extraEntries: { 'cli/main': 'src/cli/main.ts' } }),
);
