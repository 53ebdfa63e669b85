import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.js';

// Entries come from package.json's exports map (tsup.shared.ts).
export default defineConfig(packageBuild(import.meta.dirname));
