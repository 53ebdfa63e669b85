import { systemClock, type Clock } from '@k/rest';

/**
 * WorkqueueRateLimiter decides how long a key waits before it is retried (client-go's
 * `TypedRateLimiter`): `when` records one more failure of `key` and returns the delay in
 * milliseconds, `forget` clears its history once it succeeded, `numRequeues` counts its failures.
 */
export interface WorkqueueRateLimiter<K> {
  when(key: K): number;
  forget(key: K): void;
  numRequeues(key: K): number;
}

/**
 * ItemExponentialFailureRateLimiter waits `baseDelayMs · 2^failures` for a key, capped at
 * `maxDelayMs` (client-go's: the first retry waits the base delay). Counts are per key.
 */
export class ItemExponentialFailureRateLimiter<K> implements WorkqueueRateLimiter<K> {
  readonly #failures = new Map<K, number>();
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;

  constructor(baseDelayMs: number, maxDelayMs: number) {
    this.#baseDelayMs = baseDelayMs;
    this.#maxDelayMs = maxDelayMs;
  }

  when(key: K): number {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    const delay = this.#baseDelayMs * 2 ** failures;
    return Number.isFinite(delay) && delay <= this.#maxDelayMs ? delay : this.#maxDelayMs;
  }

  forget(key: K): void {
    this.#failures.delete(key);
  }

  numRequeues(key: K): number {
    return this.#failures.get(key) ?? 0;
  }
}

/**
 * ItemFastSlowRateLimiter waits `fastDelayMs` for the first `maxFastAttempts` failures of a key,
 * then `slowDelayMs` (client-go's `ItemFastSlowRateLimiter`).
 */
export class ItemFastSlowRateLimiter<K> implements WorkqueueRateLimiter<K> {
  readonly #failures = new Map<K, number>();
  readonly #fastDelayMs: number;
  readonly #slowDelayMs: number;
  readonly #maxFastAttempts: number;

  constructor(fastDelayMs: number, slowDelayMs: number, maxFastAttempts: number) {
    this.#fastDelayMs = fastDelayMs;
    this.#slowDelayMs = slowDelayMs;
    this.#maxFastAttempts = maxFastAttempts;
  }

  when(key: K): number {
    const failures = (this.#failures.get(key) ?? 0) + 1;
    this.#failures.set(key, failures);
    return failures <= this.#maxFastAttempts ? this.#fastDelayMs : this.#slowDelayMs;
  }

  forget(key: K): void {
    this.#failures.delete(key);
  }

  numRequeues(key: K): number {
    return this.#failures.get(key) ?? 0;
  }
}

/**
 * BucketRateLimiter is an overall token bucket shared by every key (client-go's, on
 * `golang.org/x/time/rate` semantics): it holds `burst` tokens, refills `qps` per second, and
 * each `when` takes a token now, going into debt when none is left; the delay is how long the
 * debt takes to repay. Keys have no history, so `forget` does nothing.
 */
export class BucketRateLimiter<K> implements WorkqueueRateLimiter<K> {
  readonly #qps: number;
  readonly #burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #last: number;

  constructor(qps: number, burst: number, clock: Clock = systemClock) {
    this.#qps = qps;
    this.#burst = burst;
    this.#clock = clock;
    this.#tokens = burst;
    this.#last = clock.now();
  }

  when(_key: K): number {
    const now = this.#clock.now();
    const elapsedSeconds = Math.max(0, now - this.#last) / 1000;
    this.#tokens = Math.min(this.#burst, this.#tokens + elapsedSeconds * this.#qps) - 1;
    this.#last = now;
    return this.#tokens >= 0 ? 0 : (-this.#tokens / this.#qps) * 1000;
  }

  forget(_key: K): void {}

  numRequeues(_key: K): number {
    return 0;
  }
}

/**
 * MaxOfRateLimiter asks every limiter (each records the failure) and waits the longest delay;
 * `numRequeues` is the largest count, `forget` forgets in all (client-go's `MaxOfRateLimiter`).
 */
export class MaxOfRateLimiter<K> implements WorkqueueRateLimiter<K> {
  readonly #limiters: readonly WorkqueueRateLimiter<K>[];

  constructor(...limiters: WorkqueueRateLimiter<K>[]) {
    this.#limiters = limiters;
  }

  when(key: K): number {
    let longest = 0;
    for (const limiter of this.#limiters) longest = Math.max(longest, limiter.when(key));
    return longest;
  }

  forget(key: K): void {
    for (const limiter of this.#limiters) limiter.forget(key);
  }

  numRequeues(key: K): number {
    let most = 0;
    for (const limiter of this.#limiters) most = Math.max(most, limiter.numRequeues(key));
    return most;
  }
}

/**
 * defaultControllerRateLimiter is client-go's `DefaultTypedControllerRateLimiter`: the longer of a
 * per-key exponential backoff (5 ms · 2^failures, capped at 1000 s) and an overall bucket of
 * 10 qps with a burst of 100, so one failing key backs off and a storm of them is paced.
 */
export function defaultControllerRateLimiter<K>(
  clock: Clock = systemClock,
): WorkqueueRateLimiter<K> {
  return new MaxOfRateLimiter<K>(
    new ItemExponentialFailureRateLimiter<K>(5, 1000 * 1000),
    new BucketRateLimiter<K>(10, 100, clock),
  );
}
