#!/usr/bin/env node
// Launcher: @k/codegen is private and runs from source. Node is started again with tsx's loader
// and the `@k/source` condition, so the workspace packages it uses resolve to their sources too.
import { spawnSync } from 'node:child_process';
import { fileURLToPath, URL } from 'node:url';

const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const result = spawnSync(
  process.execPath,
  ['--conditions=@k/source', '--import', import.meta.resolve('tsx'), cli, ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
if (result.error) throw result.error;
process.exitCode = result.status ?? 1;
