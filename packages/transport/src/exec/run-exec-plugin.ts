import { spawn, type ChildProcess } from 'node:child_process';
import { ExecPluginError } from '../errors.js';

/** RunExecPluginOptions describe one plugin run. */
export interface RunExecPluginOptions {
  command: string;
  args: readonly string[];
  /** env is the complete environment of the plugin. */
  env: NodeJS.ProcessEnv;
  /** interactive connects our standard input and standard error directly to the plugin. */
  interactive: boolean;
  /** timeoutMs kills the plugin's process tree after this long; 0 waits forever (client-go). */
  timeoutMs: number;
  /** killGraceMs is how long SIGTERM has before SIGKILL (default 2000). */
  killGraceMs?: number;
  /** stderr receives the plugin's stderr as it is written (null: captured only). */
  stderr: NodeJS.WritableStream | null;
  /** redact turns the stderr tail into something safe for an error message (stdout given as a hint). */
  redact: (stderr: string, stdout: string) => string;
  /** notFoundMessage builds the message for a missing command (with the rate-limited hint). */
  notFoundMessage: () => string;
  /** signal stops the run (the process tree is killed) and rejects with ERR_EXEC_CLOSED. */
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

// Process groups of detached plugins still running, killed if this process exits first.
const runningGroups = new Set<number>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const group of runningGroups) signalGroup(group, 'SIGKILL');
  });
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/**
 * runExecPlugin runs a credential plugin without a shell (`spawn(command, args, { shell: false })`,
 * PATH lookup for bare names) and resolves with its stdout when it exits 0. Standard input is
 * the terminal only when `interactive` (else /dev/null); so is standard error then, so the plugin
 * can prompt. Otherwise stderr is forwarded to `options.stderr` as it comes and its last 64 KiB
 * are kept for errors. Non-interactive plugins run in their own process group so a timeout or
 * `signal` kills the whole tree (SIGTERM, SIGKILL after the grace period); groups still running
 * when this process exits are killed too.
 *
 * Errors (`ExecPluginError`): `ERR_EXEC_NOT_FOUND`; `ERR_EXEC_FAILED` with client-go's
 * `exec: executable <cmd> failed with exit code <n>` plus the redacted stderr tail;
 * `ERR_EXEC_TIMEOUT`; `ERR_EXEC_RUN` (`exec: <error>`); `ERR_EXEC_CLOSED`;
 * `ERR_EXEC_INVALID_OUTPUT` when stdout is larger than allowed.
 */
export function runExecPlugin(options: RunExecPluginOptions): Promise<ExecPluginRun> {
  const startedAt = Date.now();
  const command = options.command;
  const detached = !options.interactive && process.platform !== 'win32';
  const maxStdoutBytes = options.maxStdoutBytes ?? 4 * 1024 * 1024;
  return new Promise<ExecPluginRun>((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(closedError(command));
      return;
    }
    let child: ChildProcess;
    try {
      child = spawn(command, [...options.args], {
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

    const stderrTail = (): string => {
      const text = Buffer.concat(stderr).toString('utf8');
      const redacted = options.redact(text, Buffer.concat(stdout).toString('utf8')).trimEnd();
      return redacted.length > STDERR_TAIL_CHARACTERS
        ? `…${redacted.slice(-STDERR_TAIL_CHARACTERS)}`
        : redacted;
    };
    const kill = () => {
      if (child.pid === undefined) return;
      if (detached) signalGroup(child.pid, 'SIGTERM');
      else child.kill('SIGTERM');
      killTimer ??= setTimeout(() => {
        if (child.pid === undefined) return;
        if (detached) signalGroup(child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      }, options.killGraceMs ?? 2000);
      killTimer.unref();
    };
    const stop = (error: ExecPluginError) => {
      failure ??= error;
      kill();
    };
    const onAbort = () => stop(closedError(command));
    const finish = (settle: () => void) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (child.pid !== undefined) runningGroups.delete(child.pid);
      settle();
    };

    if (detached && child.pid !== undefined) {
      installExitHook();
      runningGroups.add(child.pid);
    }
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.timeoutMs > 0) {
      timer = setTimeout(() => {
        stop(
          new ExecPluginError(
            'ERR_EXEC_TIMEOUT',
            `exec: executable ${command} did not finish within ${options.timeoutMs}ms; it was killed`,
            { command, stderrTail: stderrTail() },
          ),
        );
      }, options.timeoutMs);
    }

    child.stdout?.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > maxStdoutBytes) {
        stop(
          new ExecPluginError(
            'ERR_EXEC_INVALID_OUTPUT',
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
    child.on('error', (error: NodeJS.ErrnoException) => {
      finish(() => {
        if (error.code === 'ENOENT' && error.syscall?.startsWith('spawn')) {
          reject(
            new ExecPluginError('ERR_EXEC_NOT_FOUND', options.notFoundMessage(), {
              command,
              cause: error,
            }),
          );
        } else {
          reject(failure ?? runError(command, error));
        }
      });
    });
    child.on('close', (code, signal) => {
      finish(() => {
        if (failure) {
          if (failure.code === 'ERR_EXEC_TIMEOUT' || failure.code === 'ERR_EXEC_CLOSED') {
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
            'ERR_EXEC_FAILED',
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
    });
  });
}

function closedError(command: string): ExecPluginError {
  return new ExecPluginError(
    'ERR_EXEC_CLOSED',
    `exec: credential provider for ${command} was closed`,
    { command },
  );
}

function runError(command: string, error: unknown): ExecPluginError {
  const message = error instanceof Error ? error.message : String(error);
  return new ExecPluginError('ERR_EXEC_RUN', `exec: ${message}`, { command, cause: error });
}
