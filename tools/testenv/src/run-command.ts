import { spawn } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { ControlPlaneError, type ControlPlaneErrorCode } from './errors.js';
import type { ProgressSink } from './progress.js';

const NICE = ['/usr/bin/nice', '/bin/nice'].find((path) => existsSync(path));

/** RunCommandOptions configure {@link runCommand}. */
export interface RunCommandOptions {
  /** Names the step in progress events and errors. */
  readonly step: string;
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Every output line (stdout and stderr, interleaved) is also appended to this file. */
  readonly logPath?: string;
  readonly onProgress?: ProgressSink;
  /** Interval of heartbeat events while the command runs, ms (default 20 000). */
  readonly heartbeatMs?: number;
  /** Lower the command's CPU priority (nice 10): builds should not starve the machine. */
  readonly lowPriority?: boolean;
  /** How many trailing output lines a failure reports (default 40). */
  readonly tailLines?: number;
  /** Called with the pid as soon as the command runs (e.g. to hand it to a watchdog). */
  readonly onSpawn?: (pid: number) => void;
  /** Error code of a failure (default BUILD_FAILED). */
  readonly errorCode?: ControlPlaneErrorCode;
}

/** CommandResult is the captured output of a successful {@link runCommand}. */
export interface CommandResult {
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * runCommand runs `command args` to completion and resolves with its output. It reports `start`,
 * `heartbeat` and `end` progress for `step`; when the command cannot start or exits non-zero it
 * rejects with a ControlPlaneError naming the step, the exit status and the tail of the output.
 */
export function runCommand(
  command: string,
  args: readonly string[],
  options: RunCommandOptions,
): Promise<CommandResult> {
  const startedAt = Date.now();
  const progress = options.onProgress;
  const tailLines = options.tailLines ?? 40;
  progress?.({ kind: 'start', step: options.step, elapsedMs: 0, message: 'started' });
  return new Promise((resolve, reject) => {
    // `nice` for the whole process tree: setpriority(2) on a pid only renices that one thread on
    // Linux, and the go command forks its compilers from other threads.
    const niced = options.lowPriority && NICE !== undefined;
    const child = spawn(niced ? NICE : command, niced ? ['-n', '10', command, ...args] : args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.once('spawn', () => {
      if (child.pid !== undefined) options.onSpawn?.(child.pid);
    });
    const log = options.logPath ? createWriteStream(options.logPath, { flags: 'a' }) : undefined;
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    const tail: string[] = [];
    let partial = '';
    const collect = (sink: Buffer[]) => (chunk: Buffer) => {
      sink.push(chunk);
      log?.write(chunk);
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      tail.push(...lines);
      if (tail.length > tailLines * 2) tail.splice(0, tail.length - tailLines);
    };
    child.stdout.on('data', collect(stdout));
    child.stderr.on('data', collect(stderr));
    const heartbeat = setInterval(() => {
      progress?.({
        kind: 'heartbeat',
        step: options.step,
        elapsedMs: Date.now() - startedAt,
        message: 'still running',
      });
    }, options.heartbeatMs ?? 20_000);
    heartbeat.unref();
    const finish = (error: Error | undefined) => {
      clearInterval(heartbeat);
      log?.end();
      if (error) {
        reject(error);
        return;
      }
      progress?.({
        kind: 'end',
        step: options.step,
        elapsedMs: Date.now() - startedAt,
        message: 'done',
      });
      resolve({
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      });
    };
    child.on('error', (error) => {
      finish(
        new ControlPlaneError(
          options.errorCode ?? 'BUILD_FAILED',
          `step "${options.step}" could not run ${command}: ${error.message}`,
          {
            step: options.step,
            cause: error,
          },
        ),
      );
    });
    child.on('close', (code, signal) => {
      if (code === 0) {
        finish(undefined);
        return;
      }
      if (partial) tail.push(partial);
      const status = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      finish(
        new ControlPlaneError(
          options.errorCode ?? 'BUILD_FAILED',
          `step "${options.step}" failed: ${[command, ...args].join(' ')} ${status}${options.logPath ? ` (full log: ${options.logPath})` : ''}`,
          { step: options.step, logTail: tail.slice(-tailLines).join('\n') },
        ),
      );
    });
  });
}

/**
 * checkVersion runs `binary args` and throws BUILD_FAILED unless the output contains `expected`:
 * the last check of a build that it produced what was asked for.
 */
export async function checkVersion(
  binary: string,
  args: readonly string[],
  expected: string,
  progress: ProgressSink,
): Promise<void> {
  const step = `check ${binary.split('/').pop()} version`;
  const result = await runCommand(binary, args, { step, onProgress: progress });
  const output = result.stdout + result.stderr;
  if (!output.includes(expected)) {
    throw new ControlPlaneError(
      'BUILD_FAILED',
      `step "${step}" expected "${expected}" in the output`,
      { step, logTail: output },
    );
  }
}
