import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { secretLeaks } from '../../e2e/support/secret-leaks.js';
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
    notFoundMessage: (detail) => (detail ? `not found: ${detail}` : 'not found'),
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
    expect(error.code).toBe('ERR_TRANSPORT_EXEC_FAILED');
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
      expect(error.code).toBe('ERR_TRANSPORT_EXEC_RUN');
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
    expect(error.code).toBe('ERR_TRANSPORT_EXEC_INVALID_OUTPUT');
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

describe('runExecPlugin keeps arguments and environment out of errors', () => {
  const secrets = ['--oidc-client-secret=arg-s3cr3t-value', 'env-s3cr3t-value'];
  const secretRun = (command: string, args: string[] = [secrets[0]!]) =>
    failure(
      run('', {
        command,
        args,
        env: { ...process.env, K_TEST_SECRET: secrets[1]! },
      }),
    );

  it('a missing command (ERR_TRANSPORT_EXEC_NOT_FOUND) holds no argument or environment value', async () => {
    const error = await secretRun('/nonexistent/k-credential-plugin');
    expect(error.code).toBe('ERR_TRANSPORT_EXEC_NOT_FOUND');
    expect(secretLeaks(error, secrets)).toEqual([]);
    // What is safe to keep stays: the code, the system call and the command path.
    expect(error.cause).toMatchObject({
      code: 'ENOENT',
      syscall: 'spawn /nonexistent/k-credential-plugin',
      path: '/nonexistent/k-credential-plugin',
    });
  });

  it('a command that cannot run (ERR_TRANSPORT_EXEC_RUN) holds no argument or environment value', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'k-exec-run-'));
    try {
      const path = join(directory, 'plugin');
      writeFileSync(path, '#!/bin/sh\necho hi\n');
      chmodSync(path, 0o644);
      const error = await secretRun(path);
      expect(error.code).toBe('ERR_TRANSPORT_EXEC_RUN');
      expect(error.message).toBe(`exec: spawn ${path} EACCES`);
      expect(secretLeaks(error, secrets)).toEqual([]);
      expect(error.cause).toMatchObject({ code: 'EACCES', path });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('an argument that cannot be passed (a NUL byte) is not quoted back', async () => {
    const error = await secretRun(process.execPath, [`${secrets[0]}\u0000`]);
    expect(error.code).toBe('ERR_TRANSPORT_EXEC_RUN');
    expect(error.message).toBe(
      `exec: ${process.execPath} cannot be started: an argument or environment value contains a NUL byte (ERR_INVALID_ARG_VALUE)`,
    );
    expect(secretLeaks(error, secrets)).toEqual([]);
  });
});

describe('runExecPlugin settles on the exit of the plugin', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'k-exec-exit-'));
  });
  afterEach(() => {
    // The helpers are in their own sessions: kill each whole session.
    for (const name of ['helper.pid']) {
      try {
        process.kill(-Number(readFileSync(join(directory, name), 'utf8')), 'SIGKILL');
      } catch {
        // Not started, or gone.
      }
    }
    rmSync(directory, { recursive: true, force: true });
  });

  it('a helper in its own session that keeps stdout open does not hold the run (setsid sh -c)', async () => {
    const pidFile = join(directory, 'helper.pid');
    const result = await run('', {
      command: '/bin/sh',
      args: ['-c', `setsid sh -c 'sleep 1000' & echo $! > '${pidFile}'; printf credential`],
      timeoutMs: 3000,
    });
    expect(result.stdout).toBe('credential');
  });

  it('a daemon that inherits stdout and stderr does not hold the run', async () => {
    const pidFile = join(directory, 'helper.pid');
    const result = await run(
      `const { spawn } = require('node:child_process');
       const helper = spawn('sleep', ['1000'], { detached: true, stdio: ['ignore', 'inherit', 'inherit'] });
       require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(helper.pid));
       helper.unref();
       process.stderr.write('daemon started\\n');
       process.stdout.write('credential');`,
      { timeoutMs: 3000 },
    );
    expect(result.stdout).toBe('credential');
  });

  it('keeps what the plugin wrote just before it exited', async () => {
    const result = await run(
      'process.stdout.write("x".repeat(1 << 20)); process.stdout.end(() => process.exit(0))',
    );
    expect(result.stdout).toBe('x'.repeat(1 << 20));
  });
});

describe('runExecPlugin looks bare command names up in PATH as Go does', () => {
  let directory: string;
  let previousDirectory: string;
  beforeEach(() => {
    previousDirectory = process.cwd();
    directory = mkdtempSync(join(tmpdir(), 'k-exec-path-'));
    mkdirSync(join(directory, 'bin'));
    for (const [file, output] of [
      ['k-path-plugin', 'from-current-directory'],
      ['bin/k-path-plugin', 'from-bin'],
    ] as const) {
      writeFileSync(join(directory, file), `#!/bin/sh\nprintf ${output}\n`);
      chmodSync(join(directory, file), 0o755);
    }
    process.chdir(directory);
  });
  afterEach(() => {
    process.chdir(previousDirectory);
    rmSync(directory, { recursive: true, force: true });
  });

  const runBare = (command: string, searchPath: string) =>
    run('', { command, args: [], env: { ...process.env, PATH: searchPath } });

  it.each([':/usr/bin', '/usr/bin::/bin', '/usr/bin:', 'bin-is-not-here:.:/usr/bin'])(
    'PATH=%j never runs the plugin in the current directory',
    async (searchPath) => {
      const error = await failure(runBare('k-path-plugin', searchPath));
      expect(error.code).toBe('ERR_TRANSPORT_EXEC_NOT_FOUND');
      expect(error.message).toBe(
        'not found: k-path-plugin was found relative to the current directory (through an empty or relative PATH entry) and is not run',
      );
    },
  );

  it('refuses a match in a relative PATH entry, and stops there as Go does', async () => {
    const error = await failure(runBare('k-path-plugin', `bin:${join(directory, 'bin')}`));
    expect(error.code).toBe('ERR_TRANSPORT_EXEC_NOT_FOUND');
    expect(error.message).toMatch(/^not found: bin\/k-path-plugin was found relative/);
  });

  it('runs a match in an absolute PATH entry that comes before any relative one', async () => {
    expect((await runBare('k-path-plugin', `${join(directory, 'bin')}::/usr/bin`)).stdout).toBe(
      'from-bin',
    );
  });

  it('reports a name found nowhere, and an empty PATH, as not found', async () => {
    for (const searchPath of ['/usr/bin', '']) {
      const error = await failure(runBare('k-path-plugin-nowhere', searchPath));
      expect(error.code).toBe('ERR_TRANSPORT_EXEC_NOT_FOUND');
      expect(error.message).toBe('not found');
    }
  });

  it('runs a command with a slash as given, relative to the working directory (client-go)', async () => {
    expect((await runBare('./k-path-plugin', '/usr/bin')).stdout).toBe('from-current-directory');
    expect((await runBare('bin/k-path-plugin', '/usr/bin')).stdout).toBe('from-bin');
    const outside = relative(directory, join(directory, 'bin', 'k-path-plugin'));
    expect((await runBare(outside, '')).stdout).toBe('from-bin');
  });

  it('looks the name up in the PATH it is given, not the plugin environment (Go)', async () => {
    const result = await run('', {
      command: 'k-path-plugin',
      args: [],
      env: { ...process.env, PATH: '/usr/bin' },
      searchPath: join(directory, 'bin'),
    });
    expect(result.stdout).toBe('from-bin');
  });
});

describe('runExecPlugin timers', () => {
  const overflowWarnings = () => {
    const warnings: Error[] = [];
    const listener = (warning: Error) => {
      if (warning.name === 'TimeoutOverflowWarning') warnings.push(warning);
    };
    process.on('warning', listener);
    return { warnings, stop: () => process.off('warning', listener) };
  };

  it('treats a timeout longer than a Node timer can hold as no timeout, not 1 ms', async () => {
    const watch = overflowWarnings();
    try {
      const result = await run('setTimeout(() => process.stdout.write("late"), 300)', {
        timeoutMs: 2 ** 31,
      });
      expect(result.stdout).toBe('late');
      await sleep(10);
      expect(watch.warnings).toEqual([]);
    } finally {
      watch.stop();
    }
  });

  it('does not overflow the kill grace timer', async () => {
    const watch = overflowWarnings();
    try {
      const error = await failure(
        run('setTimeout(() => {}, 60_000)', { timeoutMs: 200, killGraceMs: 2 ** 40 }),
      );
      expect(error.code).toBe('ERR_TRANSPORT_EXEC_TIMEOUT');
      await sleep(10);
      expect(watch.warnings).toEqual([]);
    } finally {
      watch.stop();
    }
  });
});
