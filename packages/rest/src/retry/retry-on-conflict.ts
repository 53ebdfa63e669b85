import { isConflict } from '../errors.js';
import { sleep, systemClock, type Clock } from '../timers/clock.js';

/**
 * Backoff is client-go's `wait.Backoff`: at most `steps` attempts; the wait after attempt n is
 * `durationMs · factor^n` plus up to `jitter` of itself at random, capped at `capMs` when set.
 */
export interface Backoff {
  steps: number;
  durationMs: number;
  factor: number;
  jitter: number;
  capMs?: number | undefined;
}

/** DEFAULT_RETRY is client-go's `retry.DefaultRetry`: 5 attempts, 10 ms apart, 10 % jitter. */
export const DEFAULT_RETRY: Readonly<Backoff> = {
  steps: 5,
  durationMs: 10,
  factor: 1,
  jitter: 0.1,
};

/** DEFAULT_BACKOFF is client-go's `retry.DefaultBackoff`: 4 attempts, 10 ms growing ×5, 10 % jitter. */
export const DEFAULT_BACKOFF: Readonly<Backoff> = {
  steps: 4,
  durationMs: 10,
  factor: 5,
  jitter: 0.1,
};

/** RetryOnErrorOptions configure {@link retryOnError} and {@link retryOnConflict}. */
export interface RetryOnErrorOptions {
  /** backoff defaults to {@link DEFAULT_RETRY}. */
  backoff?: Backoff | undefined;
  /** signal stops waiting between attempts; the rejection is its reason. */
  signal?: AbortSignal | undefined;
  clock?: Clock | undefined;
  random?: (() => number) | undefined;
}

/**
 * retryOnError runs `fn` until it succeeds, throws an error `retriable` rejects, or the backoff's
 * steps are used up — then the last error is thrown (client-go's `retry.OnError`). `fn` gets the
 * attempt number (0-based) and must redo its whole read-modify-write each time.
 */
export async function retryOnError<T>(
  retriable: (error: unknown) => boolean,
  fn: (attempt: number) => Promise<T>,
  options: RetryOnErrorOptions = {},
): Promise<T> {
  const backoff = options.backoff ?? DEFAULT_RETRY;
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  let durationMs = backoff.durationMs;
  const steps = Math.max(1, backoff.steps);
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await fn(attempt);
    } catch (error) {
      if (attempt + 1 >= steps || !retriable(error)) throw error;
    }
    let wait = durationMs;
    if (backoff.jitter > 0) wait += wait * backoff.jitter * random();
    if (backoff.capMs !== undefined) wait = Math.min(wait, backoff.capMs);
    durationMs *= backoff.factor;
    await sleep(clock, wait, options.signal);
  }
}

/**
 * retryOnConflict runs a read-modify-write `fn` again while it fails with a conflict (`isConflict`:
 * a stale `resourceVersion`), with client-go's `DefaultRetry` backoff unless told otherwise
 * (client-go's `retry.RetryOnConflict`). Any other error, or the last conflict, is thrown.
 */
export async function retryOnConflict<T>(
  fn: (attempt: number) => Promise<T>,
  options: RetryOnErrorOptions = {},
): Promise<T> {
  return retryOnError(isConflict, fn, options);
}
