import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.js';

// Entries come from package.json's exports map (tsup.shared.ts), plus the k-config command's main;
// the yaml library is built in (docs/decisions/0015).
export default defineConfig(
  packageBuild(import.meta.dirname, {
    extraEntries: { 'cli/main': 'src/cli/main.ts' },
    bundleYaml: true,
  }),
);
