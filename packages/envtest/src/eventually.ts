import { EnvtestError } from './errors.js';
import type { EventuallyOptions } from './types.js';

/** DEFAULT_EVENTUALLY_TIMEOUT_MS stays below the 30 s test timeout the README recommends. */
const DEFAULT_EVENTUALLY_TIMEOUT_MS = 10_000;
const DEFAULT_EVENTUALLY_INTERVAL_MS = 100;

/** Settled is the outcome of one attempt. */
type Settled<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

function checkDuration(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new EnvtestError(
      'ERR_ENVTEST_INVALID_OPTIONS',
      `eventually: ${name} must be a number of milliseconds, 0 or more`,
      { step: 'eventually' },
    );
  }
  return value;
}

/**
 * waitFor resolves with `promise`'s outcome, or with `undefined` once `ms` passed or `signal`
 * aborted. Its timer keeps the process alive while it waits and is cleared when it settles.
 */
function waitFor<T>(
  promise: Promise<Settled<T>> | undefined,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<Settled<T> | undefined> {
  return new Promise((resolve) => {
    const done = (outcome: Settled<T> | undefined) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const onAbort = () => done(undefined);
    const timer = setTimeout(() => done(undefined), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
    void promise?.then(done);
  });
}

/**
 * eventually calls `check` (with the attempt number, from 1) until it returns or resolves without
 * throwing, and resolves with that value. Between attempts it waits `intervalMs` (default 100);
 * after `timeoutMs` (default 10 000) it rethrows the last failed attempt's error unchanged, so an
 * assertion's diff reaches the test report; the last attempt starts at the deadline. An attempt
 * still running at the deadline is not waited for: the previous attempt's error is thrown, or
 * `ERR_ENVTEST_TIMEOUT` when the first attempt is still running. An aborted `signal` rejects with
 * its reason at once. Its timers keep the process alive while it waits, and none is left once it
 * settles.
 */
export async function eventually<T>(
  check: (attempt: number) => T | Promise<T>,
  options: EventuallyOptions = {},
): Promise<T> {
  if (typeof check !== 'function') {
    throw new EnvtestError('ERR_ENVTEST_INVALID_OPTIONS', 'eventually: check must be a function', {
      step: 'eventually',
    });
  }
  const timeoutMs = checkDuration(options.timeoutMs, 'timeoutMs', DEFAULT_EVENTUALLY_TIMEOUT_MS);
  const intervalMs = checkDuration(
    options.intervalMs,
    'intervalMs',
    DEFAULT_EVENTUALLY_INTERVAL_MS,
  );
  const signal = options.signal;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  let failed = false;
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    const running: Promise<Settled<T>> = (async () => check(attempt))().then(
      (value) => ({ ok: true, value }),
      (error: unknown) => ({ ok: false, error }),
    );
    // The attempt may run past the deadline; it is not waited for beyond it.
    const outcome = await waitFor(running, Math.max(0, deadline - Date.now()), signal);
    signal?.throwIfAborted();
    if (outcome === undefined) {
      // The deadline passed during an attempt: the previous attempt's error says most.
      if (failed) throw lastError;
      throw new EnvtestError(
        'ERR_ENVTEST_TIMEOUT',
        `eventually: the first attempt was still running after ${timeoutMs} ms`,
        { step: 'eventually' },
      );
    }
    if (outcome.ok) return outcome.value;
    lastError = outcome.error;
    failed = true;
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw lastError;
    await waitFor(undefined, Math.min(intervalMs, remaining), signal);
  }
}
