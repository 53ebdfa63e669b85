import { systemClock, type Clock } from './clock.js';
import { onAbort } from './on-abort.js';

/** LinkedSignalOptions add a deadline to {@link linkSignals}. */
export interface LinkedSignalOptions {
  /** timeoutMs aborts the signal after this long (none when undefined). */
  timeoutMs?: number | undefined;
  /** timeoutReason is the abort reason at the deadline (default: a `TimeoutError` DOMException, as `AbortSignal.timeout` gives). */
  timeoutReason?: (() => unknown) | undefined;
  /** clock runs the deadline (default: the system clock, whose timer is pending work and keeps `node` alive). */
  clock?: Clock | undefined;
}

/** LinkedSignal is the signal of {@link linkSignals}; `dispose()` unlinks it from its sources and deadline. */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** timedOut is true when the deadline, not a source, aborted the signal. */
  readonly timedOut: boolean;
  /** dispose stops the deadline and unsubscribes from the sources (the signal keeps its state). */
  dispose(): void;
}

/**
 * linkSignals returns a signal that aborts, with the first reason, when any of `sources` aborts
 * or `timeoutMs` passes. Use it instead of `AbortSignal.any([signal, AbortSignal.timeout(ms)])`:
 * Node 20 holds those sources weakly, so once a garbage collection ran the timeout signal is
 * collected and the combined signal never aborts. Here the timer and the sources' listeners hold
 * the controller strongly until `dispose()`, which the caller must call when the wait is over.
 */
export function linkSignals(
  sources: readonly (AbortSignal | undefined)[],
  options: LinkedSignalOptions = {},
): LinkedSignal {
  const controller = new AbortController();
  const unsubscribes: (() => void)[] = [];
  let timedOut = false;
  let timer: unknown;
  const clock = options.clock ?? systemClock;
  const dispose = (): void => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
    for (const unsubscribe of unsubscribes.splice(0)) unsubscribe();
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
    unsubscribes.push(onAbort(source, () => abort(source.reason)));
  }
  const timeoutMs = options.timeoutMs;
  if (!controller.signal.aborted && timeoutMs !== undefined) {
    timer = clock.setTimeout(() => {
      timer = undefined;
      timedOut = true;
      abort(
        options.timeoutReason?.() ??
          new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
      );
    }, timeoutMs);
  }
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    dispose,
  };
}
