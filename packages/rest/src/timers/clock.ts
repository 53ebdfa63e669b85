import { onAbort } from './on-abort.js';
import { startTimer, type Timer } from './timer.js';

/**
 * Clock is where the throttle and retry loops read the time and schedule wake-ups. The system
 * clock is monotonic (`performance.now()`); tests substitute a fake one (`@k/rest/testing`).
 */
export interface Clock {
  /** now returns milliseconds from an arbitrary origin; it never goes backwards. */
  now(): number;
  /**
   * setTimeout schedules a wake-up for work that is waiting (a throttled request, a retry delay),
   * so on the system clock it keeps the process alive until it fires or is cleared. Any
   * non-negative delay works, however long.
   */
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** systemClock is the real {@link Clock}: its timers hold the event loop open (pending work). */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout: (callback, delayMs) => startTimer(callback, delayMs, true),
  clearTimeout: (handle) => (handle as Timer | undefined)?.cancel(),
};

/**
 * sleep resolves after `delayMs` on `clock`, or rejects with the signal's reason when it aborts
 * first. The timer is cleared either way.
 */
export function sleep(clock: Clock, delayMs: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason as Error);
  if (delayMs <= 0 && !signal) return Promise.resolve();
  return new Promise((resolve, reject) => {
    let unsubscribe: (() => void) | undefined;
    const handle = clock.setTimeout(
      () => {
        unsubscribe?.();
        resolve();
      },
      Math.max(0, delayMs),
    );
    if (signal) {
      unsubscribe = onAbort(signal, () => {
        clock.clearTimeout(handle);
        reject(signal.reason as Error);
      });
    }
  });
}
