import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

/**
 * stopInChild runs a plain program whose only pending work is `await child.stop(graceMs)` of a
 * managed `sh -c script`, and returns what it printed and how it exited. Only a separate process
 * shows a wait that does not hold it open: vitest's event loop never empties.
 */
async function stopInChild(script: string, graceMs: number) {
  const program = [
    "import { startManagedProcess } from './managed-process.ts';",
    "const child = await startManagedProcess('stubborn', 'sh', ['-c', process.argv[1]], '/dev/null');",
    // Give sh time to set its trap before it is signalled.
    'await new Promise((resolve) => setTimeout(resolve, 200));',
    'const exit = await child.stop(Number(process.argv[2]));',
    'console.log(JSON.stringify(exit));',
  ].join('\n');
  return run(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', program, script, String(graceMs)],
    { cwd: fileURLToPath(new URL('.', import.meta.url)), timeout: 20_000 },
  ).then(
    ({ stdout }) => ({ code: 0, stdout: stdout.trim() }),
    (error: { code?: number; killed?: boolean; stdout?: string }) => ({
      code: error.killed ? 'killed at the timeout' : error.code,
      stdout: error.stdout?.trim(),
    }),
  );
}

describe('ManagedProcess.stop in a plain program', () => {
  it('keeps the program alive until a process that ignores SIGTERM is killed', async () => {
    expect(await stopInChild('trap "" TERM; while :; do sleep 0.1; done', 500)).toEqual({
      code: 0,
      stdout: '{"code":null,"signal":"SIGKILL"}',
    });
  });

  it('lets the program exit as soon as the process is gone, not after the grace period', async () => {
    expect(await stopInChild('exec sleep 30', 60_000)).toEqual({
      code: 0,
      stdout: '{"code":null,"signal":"SIGTERM"}',
    });
  });
});
