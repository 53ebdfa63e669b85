import type { Clock } from '../timers/clock.js';

interface Timer {
  at: number;
  order: number;
  callback: () => void;
}

/**
 * FakeClock is a {@link Clock} for tests: time stands still until `advance` or `runAll` moves
 * it, and timers fire in time order as it passes them. Not for concurrent use across workers.
 */
export class FakeClock implements Clock {
  #now: number;
  #order = 0;
  readonly #timers = new Map<number, Timer>();

  constructor(start = 0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, delayMs: number): unknown {
    const id = ++this.#order;
    this.#timers.set(id, { at: this.#now + Math.max(0, delayMs), order: id, callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  /** pendingTimers is how many timers have not fired yet. */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  /**
   * advance moves time forward by `delayMs`, firing every timer due on the way (in order, each at
   * its own time) and letting promise callbacks run after each one.
   */
  async advance(delayMs: number): Promise<void> {
    const end = this.#now + delayMs;
    for (;;) {
      const next = this.#next();
      if (!next || next.at > end) break;
      this.#timers.delete(next.order);
      this.#now = Math.max(this.#now, next.at);
      next.callback();
      await flushMicrotasks();
    }
    this.#now = end;
    await flushMicrotasks();
  }

  /**
   * runAll fires timers until none is left (at most `limit`), advancing time to each and letting
   * promise callbacks run before looking for the next one.
   */
  async runAll(limit = 10_000): Promise<void> {
    for (let fired = 0; fired < limit; fired += 1) {
      await flushMicrotasks();
      const next = this.#next();
      if (!next) return;
      this.#timers.delete(next.order);
      this.#now = Math.max(this.#now, next.at);
      next.callback();
      await flushMicrotasks();
    }
  }

  #next(): Timer | undefined {
    let best: Timer | undefined;
    for (const timer of this.#timers.values()) {
      if (!best || timer.at < best.at || (timer.at === best.at && timer.order < best.order)) {
        best = timer;
      }
    }
    return best;
  }
}

/** flushMicrotasks lets pending promise callbacks run (a few macrotask-free turns). */
export async function flushMicrotasks(): Promise<void> {
  for (let turn = 0; turn < 10; turn += 1) await Promise.resolve();
}
