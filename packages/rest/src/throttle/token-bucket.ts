import { describeValue } from '../describe-value.js';
import { RestConfigurationError } from '../errors.js';
import { systemClock, type Clock } from '../timers/clock.js';
import { onAbort } from '../timers/on-abort.js';

/**
 * RateLimiter is the client-side throttle every request of a client passes before each attempt.
 * Implementations are shared by every client built from one configuration and must be safe for
 * any number of concurrent callers.
 */
export interface RateLimiter {
  /**
   * acquire takes one token: it returns `undefined` when the caller may send right away (no
   * allocation on the fast path), else a promise that resolves when it may, in FIFO order, or
   * rejects with the signal's reason when the signal aborts first (the place is given up).
   */
  acquire(signal?: AbortSignal): Promise<void> | undefined;
  /** tryAcquire takes a token if one is available now and reports whether it did. */
  tryAcquire(): boolean;
}

/** TokenBucketOptions configure a {@link TokenBucket}; client-go's `QPS`/`Burst` rules apply. */
export interface TokenBucketOptions {
  /**
   * qps is the refill rate in tokens per second: `undefined` or 0 means 5 (client-go's
   * `DefaultQPS`); a negative value or `Infinity` means no limit. Any tiny positive rate works
   * (the wait for a token may be longer than Node's longest timer).
   */
  qps?: number | undefined;
  /** burst is the bucket size: `undefined` or 0 means 10 (client-go's `DefaultBurst`). */
  burst?: number | undefined;
  clock?: Clock | undefined;
}

/** DEFAULT_QPS is client-go's default refill rate. */
const DEFAULT_QPS = 5;
/** DEFAULT_BURST is client-go's default bucket size. */
const DEFAULT_BURST = 10;

/** Refill arithmetic is in floating point; a token this close to whole counts as whole. */
const TOKEN_EPSILON = 1e-9;

interface Waiter {
  resolve: () => void;
  reject: (reason: unknown) => void;
  unsubscribe: (() => void) | undefined;
}

/**
 * TokenBucket is client-go's token-bucket limiter (`golang.org/x/time/rate`): it starts full with
 * `burst` tokens, refills at `qps` per second up to `burst`, and serves waiters first come, first
 * served. A waiter's wake-up timer keeps the process alive (its request is pending work); with no
 * waiter there is no timer. Safe for concurrent use; one instance is shared per configuration.
 */
export class TokenBucket implements RateLimiter {
  readonly qps: number;
  readonly burst: number;
  readonly #clock: Clock;
  readonly #unlimited: boolean;
  #tokens: number;
  #last: number;
  #waiters: Waiter[] = [];
  #head = 0;
  #timer: unknown = undefined;

  constructor(options: TokenBucketOptions = {}) {
    const qps = options.qps === undefined || options.qps === 0 ? DEFAULT_QPS : options.qps;
    const burst =
      options.burst === undefined || options.burst === 0 ? DEFAULT_BURST : options.burst;
    if (typeof qps !== 'number' || Number.isNaN(qps)) {
      throw new RestConfigurationError(`qps must be a number, got ${describeValue(qps)}`);
    }
    if (typeof burst !== 'number' || !(burst > 0) || !Number.isFinite(burst)) {
      throw new RestConfigurationError(
        `burst must be a positive number, got ${describeValue(burst)}`,
      );
    }
    this.#unlimited = qps < 0 || qps === Infinity;
    this.qps = this.#unlimited ? Infinity : qps;
    this.burst = this.#unlimited ? Infinity : burst;
    this.#clock = options.clock ?? systemClock;
    this.#tokens = this.burst;
    this.#last = this.#clock.now();
  }

  /** unlimited returns a bucket with no rate limit. */
  static unlimited(clock?: Clock): TokenBucket {
    return new TokenBucket({ qps: Infinity, ...(clock ? { clock } : {}) });
  }

  #refill(now: number): void {
    if (this.#unlimited) return;
    if (now > this.#last) {
      this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#last) * this.qps) / 1000);
      this.#last = now;
    }
  }

  #take(): boolean {
    if (this.#unlimited) return true;
    this.#refill(this.#clock.now());
    if (this.#tokens >= 1 - TOKEN_EPSILON) {
      this.#tokens -= 1;
      return true;
    }
    return false;
  }

  /** acquire: see {@link RateLimiter.acquire}. */
  acquire(signal?: AbortSignal): Promise<void> | undefined {
    if (this.#head === this.#waiters.length && this.#take()) return undefined;
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, unsubscribe: undefined };
      if (signal) waiter.unsubscribe = onAbort(signal, () => this.#cancel(waiter, signal.reason));
      this.#waiters.push(waiter);
      this.#schedule();
    });
  }

  /** tryAcquire: see {@link RateLimiter.tryAcquire}. */
  tryAcquire(): boolean {
    return this.#head === this.#waiters.length && this.#take();
  }

  /** waiting is how many callers are queued for a token (for tests and metrics). */
  get waiting(): number {
    return this.#waiters.length - this.#head;
  }

  #cancel(waiter: Waiter, reason: unknown): void {
    const index = this.#waiters.indexOf(waiter, this.#head);
    if (index === -1) return;
    this.#waiters.splice(index, 1);
    waiter.reject(reason);
    if (this.waiting === 0) this.#clearTimer();
  }

  #delayUntilNextToken(now: number): number {
    if (this.#unlimited) return 0;
    this.#refill(now);
    if (this.#tokens >= 1 - TOKEN_EPSILON) return 0;
    return ((1 - this.#tokens) * 1000) / this.qps;
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) {
      this.#clock.clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  #schedule(): void {
    if (this.#timer !== undefined) return;
    const now = this.#clock.now();
    const delay = this.#delayUntilNextToken(now);
    this.#timer = this.#clock.setTimeout(() => this.#drain(), Math.ceil(delay));
  }

  #drain(): void {
    this.#timer = undefined;
    while (this.#head < this.#waiters.length && this.#take()) {
      const waiter = this.#waiters[this.#head] as Waiter;
      this.#waiters[this.#head] = undefined as unknown as Waiter;
      this.#head += 1;
      waiter.unsubscribe?.();
      waiter.resolve();
    }
    if (this.#head === this.#waiters.length) {
      this.#waiters = [];
      this.#head = 0;
      return;
    }
    if (this.#head > 1024) {
      this.#waiters = this.#waiters.slice(this.#head);
      this.#head = 0;
    }
    this.#schedule();
  }
}
