import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

/** ProcessExit is how a managed process ended. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * ManagedProcess is one control-plane process started by {@link startManagedProcess}: its output goes
 * to `logPath`, its exit is recorded, and `stop()` ends exactly this pid.
 */
export class ManagedProcess {
  readonly name: string;
  readonly pid: number;
  readonly logPath: string;
  readonly args: readonly string[];
  #exit: ProcessExit | undefined;
  readonly #exited: Promise<ProcessExit>;
  readonly #child: ChildProcess;

  constructor(name: string, child: ChildProcess, logPath: string, args: readonly string[]) {
    if (child.pid === undefined) throw new Error(`${name} has no pid`);
    this.name = name;
    this.pid = child.pid;
    this.logPath = logPath;
    this.args = args;
    this.#child = child;
    this.#exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.#exit = { code, signal };
        resolve(this.#exit);
      });
    });
  }

  /** exit is how the process ended, or undefined while it runs. */
  get exit(): ProcessExit | undefined {
    return this.#exit;
  }

  /** exited resolves when the process has ended (and was reaped). */
  get exited(): Promise<ProcessExit> {
    return this.#exited;
  }

  /**
   * stop sends SIGTERM, waits up to `graceMs`, then SIGKILL, and resolves once the process is gone.
   * It signals only this pid, and only while the child is unreaped, so a reused pid is never hit.
   * Until then the child keeps the caller's event loop alive: a program whose only pending work is
   * this stop neither exits early nor, once the child is gone, waits out the grace period.
   */
  async stop(graceMs: number): Promise<ProcessExit> {
    if (this.#exit) return this.#exit;
    // Unref'd while it runs (see startManagedProcess); its exit is what the caller waits for now.
    this.#child.ref();
    this.#child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const graceful = await Promise.race([
      this.#exited,
      new Promise<undefined>((resolve) => (timer = setTimeout(resolve, graceMs, undefined))),
    ]);
    clearTimeout(timer);
    if (graceful) return graceful;
    this.#child.kill('SIGKILL');
    return this.#exited;
  }

  /** logTail returns the last `lines` lines of the process's log file ('' if unreadable). */
  async logTail(lines = 40): Promise<string> {
    try {
      const text = await readFile(this.logPath, 'utf8');
      return text.trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }
}

/**
 * startManagedProcess spawns `command args` with stdout and stderr appended to `logPath` (a file,
 * not a pipe to this process, so the child never blocks on or dies from our streams), in its own
 * process group, and `unref`s it so a running component does not keep the caller's event loop
 * alive (the watchdog covers exits without stop()); `stop()` refs it again while it waits.
 * Rejects when the executable cannot be spawned.
 */
export async function startManagedProcess(
  name: string,
  command: string,
  args: readonly string[],
  logPath: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ManagedProcess> {
  const output = openSync(logPath, 'a');
  let child: ChildProcess;
  try {
    // Its own process group: a Ctrl-C in the terminal reaches the program that started the
    // control plane, which stops it in order (its clients first), not the components themselves.
    child = spawn(command, args, { stdio: ['ignore', output, output], env, detached: true });
  } finally {
    closeSync(output);
  }
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  child.unref();
  return new ManagedProcess(name, child, logPath, args);
}
