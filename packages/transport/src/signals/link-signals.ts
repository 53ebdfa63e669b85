import { MAX_TIMER_DELAY_MS } from '../checks/timer-delay.js';

/** SignalClock schedules the deadline of {@link linkSignals} (@k/rest's `Clock` is one). */
export interface SignalClock {
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** LinkedSignalOptions add a deadline to {@link linkSignals}. */
export interface LinkedSignalOptions {
  /** timeoutMs aborts the signal after this long (none when undefined). */
  timeoutMs?: number | undefined;
  /** timeoutReason is the abort reason at the deadline (default: a `TimeoutError` DOMException, as `AbortSignal.timeout` gives). */
  timeoutReason?: (() => unknown) | undefined;
  /**
   * clock runs the deadline (default: Node's timers; the timer is pending work and keeps `node`
   * alive, and a deadline past ~24.8 days, longer than a Node timer holds, is none).
   */
  clock?: SignalClock | undefined;
}

/** LinkedSignal is the signal of {@link linkSignals}; `dispose()` unlinks it from its sources and deadline. */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** timedOut is true when the deadline, not a source, aborted the signal. */
  readonly timedOut: boolean;
  /** dispose stops the deadline and unsubscribes from the sources (the signal keeps its state). */
  dispose(): void;
}

const NODE_TIMERS: SignalClock = {
  setTimeout: (callback, delayMs) =>
    delayMs <= MAX_TIMER_DELAY_MS ? setTimeout(callback, delayMs) : undefined,
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout> | undefined),
};

/**
 * linkSignals returns a signal that aborts, with the first reason, when any of `sources` aborts
 * or `timeoutMs` passes. It does what `AbortSignal.any([signal, AbortSignal.timeout(ms)])` does on
 * Node 22 and newer, and did not on Node 20 (which held those sources weakly, so after a garbage
 * collection the combined signal never aborted); it stays because the timer and the sources'
 * listeners are released by `dispose()`, which the caller must call when the wait is over.
 */
export function linkSignals(
  sources: readonly (AbortSignal | undefined)[],
  options: LinkedSignalOptions = {},
): LinkedSignal {
  const controller = new AbortController();
  const listeners: [AbortSignal, () => void][] = [];
  const clock = options.clock ?? NODE_TIMERS;
  let timedOut = false;
  let timer: unknown;
  const dispose = (): void => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
    for (const [source, listener] of listeners.splice(0)) {
      source.removeEventListener('abort', listener);
    }
  };
  const abort = (reason: unknown): void => {
    dispose();
    controller.abort(reason);
  };
  for (const source of sources) {
    if (!source) continue;
    if (source.aborted) {
      abort(source.reason);
      break;
    }
    const listener = (): void => abort(source.reason);
    source.addEventListener('abort', listener, { once: true });
    listeners.push([source, listener]);
  }
  const timeoutMs = options.timeoutMs;
  if (!controller.signal.aborted && timeoutMs !== undefined) {
    timer = clock.setTimeout(
      () => {
        timer = undefined;
        timedOut = true;
        abort(
          options.timeoutReason?.() ??
            new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
        );
      },
      Math.max(0, timeoutMs),
    );
  }
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    dispose,
  };
}
