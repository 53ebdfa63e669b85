/**
 * Clock is where the throttle and retry loops read the time and schedule wake-ups. The system
 * clock is monotonic (`performance.now()`); tests substitute a fake one (`@k/rest/testing`).
 */
export interface Clock {
  /** now returns milliseconds from an arbitrary origin; it never goes backwards. */
  now(): number;
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** systemClock is the real {@link Clock}; its timers do not keep the process alive. */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout: (callback, delayMs) => {
    const handle = setTimeout(callback, delayMs);
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * sleep resolves after `delayMs` on `clock`, or rejects with the signal's reason when it aborts
 * first. The timer is cleared either way.
 */
export function sleep(clock: Clock, delayMs: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason as Error);
  if (delayMs <= 0 && !signal) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clock.clearTimeout(handle);
      reject(signal?.reason as Error);
    };
    const handle = clock.setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, delayMs),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
