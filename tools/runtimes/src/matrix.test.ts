import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startNodeProgram } from '@k/test-utils';
import { describe, expect, it } from 'vitest';

const MATRIX = pathToFileURL(path.join(import.meta.dirname, 'matrix.js')).href;

/** step is a command that prints `name` once it runs, then runs until it is stopped. */
const step = (name: string) => [
  process.execPath,
  '-e',
  `console.log(${JSON.stringify(`${name} running`)}); setInterval(() => {}, 1000);`,
];

describe('runMatrix', () => {
  it('on SIGINT ends the running step, starts no other, prints the summary and dies of SIGINT', async () => {
    const program = await startNodeProgram(
      {
        imports: { [MATRIX]: ['exitAsMatrix', 'runMatrix'] },
        main: `
          const outcome = await runMatrix({
            lines: [22, 24],
            steps: ['first', 'second'],
            commands: ${JSON.stringify({ first: step('first'), second: step('second') })},
            cwd: process.cwd(),
            log: (line) => process.stderr.write(line + '\\n'),
            prepare: async (line) => ({ version: line + '.0.0', env: { ...process.env } }),
          });
          exitAsMatrix(outcome);`,
      },
      'esm',
    );
    await program.waitForStdout(/first running/);
    program.child.kill('SIGINT');
    const result = await program.exited;
    expect(result.stdout).toBe('first running\n');
    expect(result.signal).toBe('SIGINT');
    expect(result.stderr).toContain('test-matrix: node 22.0.0 first: FAILED (exit 130)');
    expect(result.stderr).not.toContain('second');
    expect(result.stderr).toContain('test-matrix: stopped by SIGINT');
  });
});
