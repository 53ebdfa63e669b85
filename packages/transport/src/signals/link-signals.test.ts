import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { linkSignals, type SignalClock } from './link-signals.js';

const run = promisify(execFile);

/** ManualClock fires its timers only when advanced. */
class ManualClock implements SignalClock {
  now = 0;
  readonly #timers = new Map<number, { at: number; callback: () => void }>();
  #next = 0;

  setTimeout(callback: () => void, delayMs: number): unknown {
    this.#next += 1;
    this.#timers.set(this.#next, { at: this.now + delayMs, callback });
    return this.#next;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  advance(delayMs: number): void {
    this.now += delayMs;
    for (const [handle, timer] of [...this.#timers]) {
      if (timer.at > this.now) continue;
      this.#timers.delete(handle);
      timer.callback();
    }
  }
}

describe('linkSignals', () => {
  it('aborts with the first source reason and unsubscribes from the others', () => {
    const first = new AbortController();
    const second = new AbortController();
    const linked = linkSignals([first.signal, undefined, second.signal]);
    first.abort(new Error('first'));
    second.abort(new Error('second'));
    expect(linked.signal.aborted).toBe(true);
    expect((linked.signal.reason as Error).message).toBe('first');
    expect(linked.timedOut).toBe(false);
  });

  it('is aborted at once by a source that already aborted', () => {
    const source = AbortSignal.abort(new Error('gone'));
    const linked = linkSignals([source], { timeoutMs: 10 });
    expect((linked.signal.reason as Error).message).toBe('gone');
  });

  it('aborts at the deadline with the given reason', () => {
    const clock = new ManualClock();
    const linked = linkSignals([new AbortController().signal], {
      timeoutMs: 1000,
      timeoutReason: () => new Error('too slow'),
      clock,
    });
    clock.advance(999);
    expect(linked.signal.aborted).toBe(false);
    clock.advance(1);
    expect(linked.timedOut).toBe(true);
    expect((linked.signal.reason as Error).message).toBe('too slow');
  });

  it('never aborts after dispose', () => {
    const clock = new ManualClock();
    const source = new AbortController();
    const linked = linkSignals([source.signal], { timeoutMs: 10, clock });
    linked.dispose();
    clock.advance(20);
    source.abort();
    expect(linked.signal.aborted).toBe(false);
  });

  // Node 20 loses `AbortSignal.any([signal, AbortSignal.timeout(ms)])` once a GC ran before the
  // deadline; only a real process with a real GC shows it.
  it('reaches its deadline in a process that collects garbage before it is due', async () => {
    const program = [
      "import { linkSignals } from './link-signals.ts';",
      'const stop = new AbortController();',
      'const { signal } = linkSignals([stop.signal], { timeoutMs: 300 });',
      'const aborted = new Promise((resolve) => signal.addEventListener("abort", () => resolve(signal.reason.name)));',
      'globalThis.gc();',
      'await new Promise((resolve) => setTimeout(resolve, 50));',
      'globalThis.gc();',
      'console.log(await aborted);',
    ].join('\n');
    const { stdout } = await run(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', program],
      { cwd: fileURLToPath(new URL('.', import.meta.url)), timeout: 20_000 },
    );
    expect(stdout.trim()).toBe('TimeoutError');
  });
});
