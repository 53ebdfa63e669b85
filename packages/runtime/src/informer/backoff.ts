import { systemClock, type Clock } from '@k/rest';

/** ExponentialBackoffOptions shape a {@link ExponentialBackoff} (defaults: client-go's reflector backoff). */
export interface ExponentialBackoffOptions {
  /** initialMs is the first delay before jitter (default 800 ms). */
  initialMs?: number | undefined;
  /** factor multiplies the delay after each step (default 2). */
  factor?: number | undefined;
  /** capMs bounds the delay before jitter (default 30 s). */
  capMs?: number | undefined;
  /** jitter adds up to this fraction of the delay at random (default 1.0: the delay is in [d, 2d)). */
  jitter?: number | undefined;
  /** resetAfterMs starts over at `initialMs` when the last step is this long ago (default 2 min). */
  resetAfterMs?: number | undefined;
  clock?: Clock | undefined;
  random?: (() => number) | undefined;
}

/**
 * ExponentialBackoff is client-go's `ExponentialBackoffManager` as the reflector uses it: each `next()` is
 * the delay before the next attempt — 800 ms, 1.6 s, 3.2 s, … up to 30 s, each with up to 100 %
 * jitter — and a backoff not used for 2 minutes (the informer was healthy) starts over.
 */
export class ExponentialBackoff {
  readonly #initialMs: number;
  readonly #factor: number;
  readonly #capMs: number;
  readonly #jitter: number;
  readonly #resetAfterMs: number;
  readonly #clock: Clock;
  readonly #random: () => number;
  #currentMs: number;
  #lastStep = -Infinity;

  constructor(options: ExponentialBackoffOptions = {}) {
    this.#initialMs = options.initialMs ?? 800;
    this.#factor = options.factor ?? 2;
    this.#capMs = options.capMs ?? 30_000;
    this.#jitter = options.jitter ?? 1;
    this.#resetAfterMs = options.resetAfterMs ?? 2 * 60_000;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.#currentMs = this.#initialMs;
  }

  /** next returns the delay (ms) to wait now and advances the backoff. */
  next(): number {
    const now = this.#clock.now();
    if (now - this.#lastStep > this.#resetAfterMs) this.#currentMs = this.#initialMs;
    this.#lastStep = now;
    const delay = this.#currentMs;
    this.#currentMs = Math.min(this.#capMs, this.#currentMs * this.#factor);
    return delay + this.#random() * this.#jitter * delay;
  }
}
