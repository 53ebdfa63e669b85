import { describe, expect, it } from 'vitest';
import { MODULE_KINDS, runNodeProgram, startNodeProgram } from './node-program.js';

describe.each(MODULE_KINDS)('runNodeProgram (%s)', (kind) => {
  it('runs main to its end and reports output and exit code', async () => {
    const result = await runNodeProgram(
      {
        imports: { 'node:timers/promises': ['setTimeout'] },
        main: "await setTimeout(20); console.log('done', process.argv[2]);",
      },
      kind,
      { args: ['arg'] },
    );
    expect(result).toMatchObject({ exitCode: 0, stdout: 'done arg\n', timedOut: false });
  });

  // The hazard the process-lifetime tests look for: work parked on a timer that does not hold
  // the event loop open ends the program early, and under CommonJS with status 0.
  it('shows a program that dies mid-work on an unref-ed timer', async () => {
    const result = await runNodeProgram(
      {
        imports: {},
        main: "await new Promise((resolve) => setTimeout(resolve, 50).unref()); console.log('never');",
      },
      kind,
    );
    expect(result.stdout).toBe('');
    expect(result.exitCode).toBe(kind === 'esm' ? 13 : 0);
  });

  it('reports a thrown error with exit code 1', async () => {
    const result = await runNodeProgram({ imports: {}, main: "throw new Error('boom');" }, kind);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('boom');
  });
});

describe('startNodeProgram', () => {
  it('waits for output and delivers signals', async () => {
    const program = await startNodeProgram(
      {
        imports: {},
        main: "console.log('ready'); await new Promise((resolve) => setTimeout(resolve, 30_000));",
      },
      'esm',
    );
    await program.waitForStdout(/ready/);
    program.child.kill('SIGTERM');
    const result = await program.exited;
    expect(result.signal).toBe('SIGTERM');
  });

  it('kills a program that outlives its timeout', async () => {
    const result = await runNodeProgram(
      { imports: {}, main: 'await new Promise((resolve) => setTimeout(resolve, 30_000));' },
      'cjs',
      { timeoutMs: 300 },
    );
    expect(result).toMatchObject({ timedOut: true, signal: 'SIGKILL' });
  });
});
