import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExecPluginError } from '../errors.js';
import { runExecPlugin, type RunExecPluginOptions } from './run-exec-plugin.js';

const run = (script: string, overrides: Partial<RunExecPluginOptions> = {}) =>
  runExecPlugin({
    command: process.execPath,
    args: ['-e', script],
    env: process.env,
    interactive: false,
    timeoutMs: 10_000,
    stderr: null,
    redact: (text) => text,
    notFoundMessage: () => 'not found',
    ...overrides,
  });

const failure = async (promise: Promise<unknown>): Promise<ExecPluginError> => {
  const error = await promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ExecPluginError);
  return error as ExecPluginError;
};

describe('runExecPlugin', () => {
  it('resolves with stdout of a successful run', async () => {
    const result = await run('process.stdout.write("hello")');
    expect(result.stdout).toBe('hello');
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('reports a plugin killed by a signal', async () => {
    const error = await failure(run('process.kill(process.pid, "SIGKILL")'));
    expect(error.code).toBe('ERR_EXEC_FAILED');
    expect(error.signal).toBe('SIGKILL');
    expect(error.message).toBe(
      `exec: executable ${process.execPath} was terminated by signal SIGKILL`,
    );
  });

  it('reports a file that is not executable as a run error', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'k-exec-run-'));
    try {
      const path = join(directory, 'plugin');
      writeFileSync(path, '#!/bin/sh\necho hi\n');
      chmodSync(path, 0o644);
      const error = await failure(run('', { command: path, args: [] }));
      expect(error.code).toBe('ERR_EXEC_RUN');
      expect(error.message).toMatch(/^exec: spawn .*plugin EACCES$/);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('stops a plugin that writes more stdout than allowed', async () => {
    const error = await failure(
      run('process.stdout.write("x".repeat(100000)); setTimeout(() => {}, 5000)', {
        maxStdoutBytes: 1000,
      }),
    );
    expect(error.code).toBe('ERR_EXEC_INVALID_OUTPUT');
    expect(error.message).toBe(
      `exec: executable ${process.execPath} wrote more than 1000 bytes to stdout`,
    );
  });

  it('keeps only the tail of a long stderr and redacts it with stdout as a hint', async () => {
    const error = await failure(
      run(
        'process.stderr.write("a".repeat(100000) + "\\nfinal line with tok-1234\\n"); process.stdout.write("tok-1234"); process.exitCode = 2',
        { redact: (stderr, stdout) => stderr.split(stdout).join('[redacted]') },
      ),
    );
    expect(error.exitCode).toBe(2);
    expect(error.stderrTail.length).toBeLessThanOrEqual(2049);
    expect(error.stderrTail.startsWith('…')).toBe(true);
    expect(error.stderrTail.endsWith('final line with [redacted]')).toBe(true);
  });
});
