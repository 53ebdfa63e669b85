import type { ChildProcess, spawn as spawnProcess } from 'node:child_process';
import { timerDelay } from '../checks/timer-delay.js';
import { ExecPluginError } from '../errors.js';
import { findExecutable } from './find-executable.js';
import { trackPluginProcess } from './plugin-processes.js';

/** RunExecPluginOptions describe one plugin run. */
export interface RunExecPluginOptions {
  command: string;
  args: readonly string[];
  /** env is the complete environment of the plugin. */
  env: NodeJS.ProcessEnv;
  /**
   * searchPath is the `PATH` a bare command name is looked up in (default `env.PATH`). client-go
   * looks it up in its own `PATH`, not in the plugin's environment with `exec.env` applied.
   */
  searchPath?: string;
  /** interactive connects our standard input and standard error directly to the plugin. */
  interactive: boolean;
  /**
   * timeoutMs kills the plugin's process tree after this long; 0 waits forever (client-go), and
   * so does anything longer than a Node timer holds (2^31-1 ms, ~24.8 days).
   */
  timeoutMs: number;
  /** killGraceMs is how long SIGTERM has before SIGKILL (default 2000; too long: never). */
  killGraceMs?: number;
  /**
   * outputGraceMs is how long, once the plugin has exited, its pipes may still deliver what it
   * wrote (default 200) before they are closed. A helper the plugin started may hold them open
   * forever; it does not hold the run.
   */
  outputGraceMs?: number;
  /** stderr receives the plugin's stderr as it is written (null: captured only). */
  stderr: NodeJS.WritableStream | null;
  /** redact turns the stderr tail into something safe for an error message (stdout given as a hint). */
  redact: (stderr: string, stdout: string) => string;
  /**
   * notFoundMessage builds the message for a missing command (with the rate-limited hint);
   * `detail` says why a bare name found in PATH was not run.
   */
  notFoundMessage: (detail?: string) => string;
  /** signal stops the run (the process tree is killed) and rejects with ERR_TRANSPORT_EXEC_CLOSED. */
  signal?: AbortSignal;
  /** maxStdoutBytes bounds what is kept of stdout (default 4 MiB); more is an error. */
  maxStdoutBytes?: number;
}

/** ExecPluginRun is a successful run: what the plugin printed. */
export interface ExecPluginRun {
  stdout: string;
  durationMs: number;
}

const STDERR_KEEP_BYTES = 64 * 1024;
const STDERR_TAIL_CHARACTERS = 2048;
const DEFAULT_KILL_GRACE_MS = 2000;
const DEFAULT_OUTPUT_GRACE_MS = 200;

function signalTarget(target: number, signal: NodeJS.Signals): void {
  try {
    process.kill(target, signal);
  } catch {
    // Already gone.
  }
}

/**
 * runExecPlugin runs a credential plugin without a shell and resolves with its stdout when it
 * exits 0. A bare command name is looked up in `searchPath` as Go does (see
 * {@link findExecutable}: a match relative to the current directory is refused with
 * `ERR_TRANSPORT_EXEC_NOT_FOUND`); the process is started with that path and `argv[0]` the name as
 * configured. Standard input is the terminal only when `interactive` (else /dev/null); so is
 * standard error then, so the plugin can prompt. Otherwise stderr is forwarded to
 * `options.stderr` as it comes and its last 64 KiB are kept for errors.
 *
 * The run ends when the plugin exits: what its pipes deliver within `outputGraceMs` after that
 * is used, then they are closed, so a helper that inherited them (a daemon, `setsid … &`) keeps
 * neither the run nor this process waiting. Non-interactive plugins run in their own process
 * group so a timeout or `signal` kills the whole tree (SIGTERM, SIGKILL after the grace period);
 * plugins still running when this process exits or is killed by a signal are killed too
 * (without changing how the program handles the signal).
 *
 * Errors (`ExecPluginError`): `ERR_TRANSPORT_EXEC_NOT_FOUND`; `ERR_TRANSPORT_EXEC_FAILED` with client-go's
 * `exec: executable <cmd> failed with exit code <n>` plus the redacted stderr tail;
 * `ERR_TRANSPORT_EXEC_TIMEOUT`; `ERR_TRANSPORT_EXEC_RUN` (`exec: <error>`); `ERR_TRANSPORT_EXEC_CLOSED`;
 * `ERR_TRANSPORT_EXEC_INVALID_OUTPUT` when stdout is larger than allowed. No error, nor its `cause`,
 * holds the arguments or the environment of the plugin (they may carry secrets): a spawn
 * failure keeps only its code, errno, system call and the command path.
 */
export async function runExecPlugin(options: RunExecPluginOptions): Promise<ExecPluginRun> {
  const command = options.command;
  if (options.signal?.aborted) throw closedError(command);
  const found = await findExecutable(command, options.searchPath ?? options.env.PATH ?? '');
  if (found.path === undefined) {
    throw new ExecPluginError(
      'ERR_TRANSPORT_EXEC_NOT_FOUND',
      options.notFoundMessage(
        found.relativeMatch === undefined
          ? undefined
          : `${found.relativeMatch} was found relative to the current directory (through an empty or relative PATH entry) and is not run`,
      ),
      { command },
    );
  }
  // child_process (with dgram and the socket list it pulls in) loads here, not on the import path
  // of every program: most never run a plugin.
  const { spawn } = await import('node:child_process');
  if (options.signal?.aborted) throw closedError(command);
  return run(spawn, options, found.path);
}

function run(
  spawn: typeof spawnProcess,
  options: RunExecPluginOptions,
  path: string,
): Promise<ExecPluginRun> {
  const startedAt = Date.now();
  const command = options.command;
  const detached = !options.interactive && process.platform !== 'win32';
  const maxStdoutBytes = options.maxStdoutBytes ?? 4 * 1024 * 1024;
  return new Promise<ExecPluginRun>((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(path, [...options.args], {
        argv0: command,
        shell: false,
        env: options.env,
        detached,
        stdio: [
          options.interactive ? 'inherit' : 'ignore',
          'pipe',
          options.interactive ? 'inherit' : 'pipe',
        ],
        windowsHide: true,
      });
    } catch (error) {
      reject(runError(command, error));
      return;
    }

    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    const stderr: Buffer[] = [];
    let stderrBytes = 0;
    let failure: ExecPluginError | undefined;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    let outputTimer: NodeJS.Timeout | undefined;
    const pid = child.pid;
    const killTarget = pid === undefined ? undefined : detached ? -pid : pid;
    const untrack = killTarget === undefined ? () => {} : trackPluginProcess(killTarget);

    const stderrTail = (): string => {
      const text = Buffer.concat(stderr).toString('utf8');
      const redacted = options.redact(text, Buffer.concat(stdout).toString('utf8')).trimEnd();
      return redacted.length > STDERR_TAIL_CHARACTERS
        ? `…${redacted.slice(-STDERR_TAIL_CHARACTERS)}`
        : redacted;
    };
    const kill = () => {
      if (killTarget === undefined) return;
      signalTarget(killTarget, 'SIGTERM');
      const grace = timerDelay(options.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
      if (killTimer || grace === undefined) return;
      // SIGKILL reaches what of the tree ignored SIGTERM, even after the plugin itself is gone.
      killTimer = setTimeout(() => signalTarget(killTarget, 'SIGKILL'), grace);
      killTimer.unref();
    };
    const stop = (error: ExecPluginError) => {
      failure ??= error;
      kill();
    };
    const onAbort = () => stop(closedError(command));
    const closePipes = () => {
      child.stdout?.destroy();
      child.stderr?.destroy();
    };
    const finish = (settle: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(outputTimer);
      options.signal?.removeEventListener('abort', onAbort);
      untrack();
      closePipes();
      settle();
    };

    options.signal?.addEventListener('abort', onAbort, { once: true });
    const timeout = timerDelay(options.timeoutMs);
    if (timeout !== undefined) {
      timer = setTimeout(() => {
        stop(
          new ExecPluginError(
            'ERR_TRANSPORT_EXEC_TIMEOUT',
            `exec: executable ${command} did not finish within ${options.timeoutMs}ms; it was killed`,
            { command, stderrTail: stderrTail() },
          ),
        );
      }, timeout);
    }

    child.stdout?.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > maxStdoutBytes) {
        stop(
          new ExecPluginError(
            'ERR_TRANSPORT_EXEC_INVALID_OUTPUT',
            `exec: executable ${command} wrote more than ${maxStdoutBytes} bytes to stdout`,
            { command },
          ),
        );
        return;
      }
      stdout.push(chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      options.stderr?.write(chunk);
      stderr.push(chunk);
      stderrBytes += chunk.length;
      while (stderrBytes - (stderr[0]?.length ?? 0) >= STDERR_KEEP_BYTES) {
        stderrBytes -= stderr.shift()!.length;
      }
    });
    // Destroyed pipes may report errors (EPIPE, ECONNRESET); the exit status is what counts.
    child.stdout?.on('error', () => {});
    child.stderr?.on('error', () => {});

    const ended = (code: number | null, signal: NodeJS.Signals | null) =>
      finish(() => {
        if (failure) {
          if (
            failure.code === 'ERR_TRANSPORT_EXEC_TIMEOUT' ||
            failure.code === 'ERR_TRANSPORT_EXEC_CLOSED'
          ) {
            // The tail may have grown while the process was being killed.
            reject(
              new ExecPluginError(failure.code, failure.message, {
                command,
                ...(code !== null ? { exitCode: code } : {}),
                ...(signal ? { signal } : {}),
                stderrTail: stderrTail(),
              }),
            );
          } else reject(failure);
          return;
        }
        if (code === 0) {
          resolve({
            stdout: Buffer.concat(stdout).toString('utf8'),
            durationMs: Date.now() - startedAt,
          });
          return;
        }
        const tail = stderrTail();
        const ending =
          code !== null
            ? `failed with exit code ${code}`
            : `was terminated by signal ${signal ?? 'unknown'}`;
        reject(
          new ExecPluginError(
            'ERR_TRANSPORT_EXEC_FAILED',
            `exec: executable ${command} ${ending}${tail ? `\nstderr (last lines, redacted):\n${tail}` : ''}`,
            {
              command,
              ...(code !== null ? { exitCode: code } : {}),
              ...(signal ? { signal } : {}),
              stderrTail: tail,
            },
          ),
        );
      });

    child.on('error', (error: NodeJS.ErrnoException) => {
      finish(() => {
        if (error.code === 'ENOENT' && error.syscall?.startsWith('spawn')) {
          reject(
            new ExecPluginError('ERR_TRANSPORT_EXEC_NOT_FOUND', options.notFoundMessage(), {
              command,
              cause: safeCause(command, error),
            }),
          );
        } else {
          reject(failure ?? runError(command, error));
        }
      });
    });
    child.on('exit', (code, signal) => {
      // The pipes close by themselves unless a helper inherited them; wait a little for what
      // the plugin wrote, then read what is buffered once more (setImmediate runs after the
      // next poll for I/O) and close them.
      const grace = timerDelay(options.outputGraceMs ?? DEFAULT_OUTPUT_GRACE_MS) ?? 0;
      outputTimer = setTimeout(() => setImmediate(() => ended(code, signal)), grace);
    });
    child.on('close', ended);
  });
}

function closedError(command: string): ExecPluginError {
  return new ExecPluginError(
    'ERR_TRANSPORT_EXEC_CLOSED',
    `exec: credential provider for ${command} was closed`,
    { command },
  );
}

/**
 * safeCause keeps what is safe of a spawn failure: its code, errno, system call and the command
 * path. Node's spawn errors also carry `spawnargs`, and its argument checks quote the offending
 * argument or environment value in their message; neither is kept.
 */
function safeCause(command: string, error: unknown): Error {
  const failure = (error ?? {}) as NodeJS.ErrnoException;
  const code = typeof failure.code === 'string' ? failure.code : undefined;
  const isSystemError = typeof failure.errno === 'number' && typeof failure.syscall === 'string';
  const cause = new Error(
    isSystemError
      ? `${failure.syscall} ${code ?? ''}`.trim()
      : describeRefusal(command, code, failure),
  ) as NodeJS.ErrnoException;
  if (code !== undefined) cause.code = code;
  if (isSystemError) {
    cause.errno = failure.errno;
    cause.syscall = failure.syscall;
    if (typeof failure.path === 'string') cause.path = failure.path;
  }
  return cause;
}

function describeRefusal(
  command: string,
  code: string | undefined,
  failure: NodeJS.ErrnoException,
): string {
  // Deno throws NotCapable from spawn when a permission is missing: --allow-run, or --allow-env
  // for a variable its spawn reads. Its message names the flag (and a variable name, never a
  // value), so the flag is taken from it.
  if (failure.name === 'NotCapable') {
    const flag = /--allow-[a-z-]+/.exec(String(failure.message))?.[0] ?? '--allow-run';
    return `${command} cannot be started: Deno refuses to run it (NotCapable); run deno with ${flag}`;
  }
  const reason =
    code === 'ERR_INVALID_ARG_VALUE'
      ? 'an argument or environment value contains a NUL byte'
      : 'an argument or environment value is not valid';
  return `${command} cannot be started: ${reason}${code ? ` (${code})` : ''}`;
}

function runError(command: string, error: unknown): ExecPluginError {
  const cause = safeCause(command, error);
  return new ExecPluginError('ERR_TRANSPORT_EXEC_RUN', `exec: ${cause.message}`, {
    command,
    cause,
  });
}
