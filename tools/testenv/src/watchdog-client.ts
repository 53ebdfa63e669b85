import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Socket } from 'node:net';

const WATCHDOG_SCRIPT = fileURLToPath(new URL('./watchdog.mjs', import.meta.url));

/**
 * Watchdog is the parent's handle on the watchdog process (src/watchdog.mjs) that kills a run's
 * processes and removes its run directory if this process dies without calling `disarm()` — also on
 * SIGKILL, because the watchdog notices the end of its stdin pipe.
 */
export class Watchdog {
  readonly #child: ChildProcess;
  #disarmed = false;

  private constructor(child: ChildProcess) {
    this.#child = child;
  }

  /** Watchdog.start spawns a detached watchdog for `runDir` and waits until it runs. */
  static async start(runDir: string): Promise<Watchdog> {
    const child = spawn(process.execPath, [WATCHDOG_SCRIPT, runDir], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    child.unref();
    // The pipe must not keep this process alive either; its closing is the death signal.
    (child.stdin as Socket | null)?.unref();
    child.stdin?.on('error', () => {});
    return new Watchdog(child);
  }

  /** pid of the watchdog process. */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** watch tells the watchdog about a process to kill should this process die. */
  watch(pid: number): void {
    if (!this.#disarmed) this.#child.stdin?.write(`${JSON.stringify({ pid })}\n`);
  }

  /** disarm tells the watchdog that everything was stopped here; it exits without acting. */
  async disarm(): Promise<void> {
    if (this.#disarmed) return;
    this.#disarmed = true;
    const stdin = this.#child.stdin;
    if (!stdin || this.#child.exitCode !== null) return;
    await new Promise<void>((resolve) =>
      stdin.end(`${JSON.stringify({ done: true })}\n`, () => resolve()),
    );
  }
}
