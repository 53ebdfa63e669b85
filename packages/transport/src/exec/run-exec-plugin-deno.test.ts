import type * as ChildProcess from 'node:child_process';
import { describe, expect, it, vi } from 'vitest';
import { ExecPluginError } from '../errors.js';
import { runExecPlugin } from './run-exec-plugin.js';

// Deno's permission errors cannot happen under Node, so spawn throws what Deno 2.9's spawn throws
// (its NotCapable error, message and all); the real Deno is in
// tools/workspace/e2e/other-runtimes.e2e.test.ts.
const denoRefusal = vi.hoisted(() => ({ message: '' }));
vi.mock('node:child_process', async (original) => ({
  ...(await original<typeof ChildProcess>()),
  spawn: () => {
    const error = new Error(denoRefusal.message);
    error.name = 'NotCapable';
    throw error;
  },
}));

async function refusal(message: string): Promise<ExecPluginError> {
  denoRefusal.message = message;
  const error = await runExecPlugin({
    command: process.execPath,
    args: ['--secret-argument'],
    env: { K_TEST_SECRET: 'a-secret-value' },
    interactive: false,
    timeoutMs: 10_000,
    stderr: null,
    redact: (text) => text,
    notFoundMessage: () => 'not found',
  }).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ExecPluginError);
  return error as ExecPluginError;
}

describe('an exec plugin Deno refuses to start', () => {
  it('names the flag Deno asks for: --allow-run', async () => {
    const error = await refusal(
      `Requires run access to "${process.execPath}", run again with the --allow-run flag`,
    );
    expect(error.code).toBe('ERR_TRANSPORT_EXEC_RUN');
    expect(error.message).toBe(
      `exec: ${process.execPath} cannot be started: Deno refuses to run it (NotCapable); run deno with --allow-run`,
    );
  });

  it('names the flag Deno asks for: --allow-env, when spawn reads a variable it may not', async () => {
    const error = await refusal(
      'Requires env access to "NODE_V8_COVERAGE", run again with the --allow-env flag',
    );
    expect(error.message).toBe(
      `exec: ${process.execPath} cannot be started: Deno refuses to run it (NotCapable); run deno with --allow-env`,
    );
    expect(JSON.stringify({ message: error.message, cause: String(error.cause) })).not.toMatch(
      /a-secret-value|--secret-argument/,
    );
  });
});
