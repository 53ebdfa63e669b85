/**
 * run.ts runs every `*.bench.ts` in this folder in turn, each in its own process (so one
 * benchmark's heap and JIT state do not colour the next). `npm run bench` calls it.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const directory = dirname(fileURLToPath(import.meta.url));
const benches = readdirSync(directory)
  .filter((name) => name.endsWith('.bench.ts'))
  .sort();

let failed = 0;
for (const name of benches) {
  console.log(`\n# ${name}\n`);
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--conditions=@k/source', join(directory, name)],
    { cwd: dirname(directory), stdio: 'inherit' },
  );
  if (child.status !== 0) {
    failed++;
    console.error(`${name} failed (${child.signal ?? `exit code ${child.status}`})`);
  }
}
process.exitCode = failed === 0 ? 0 : 1;
