// The k-gen command (bin/k-gen.mjs loads it): the only module that touches `process`.
import { readFileSync } from 'node:fs';
import { runKGen } from './run-k-gen.js';

// src/cli/main.ts and dist/cli/main.js are both two folders below the package's root.
const manifest = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { version: string };

process.exitCode = await runKGen(process.argv.slice(2), {
  cwd: process.cwd(),
  stdout: process.stdout,
  stderr: process.stderr,
  version: manifest.version,
});
