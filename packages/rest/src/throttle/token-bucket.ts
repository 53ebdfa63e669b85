import { RestConfigurationError } from '../errors.js';
import { systemClock, type Clock } from './clock.js';

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
  /**
   * pause stops handing out tokens for `durationMs` (the server answered 429 with Retry-After):
   * every caller waits, instead of each hitting the same wall. Pauses extend, never shorten.
   */
  pause(durationMs: number): void;
}

/** TokenBucketOptions configure a {@link TokenBucket}; client-go's `QPS`/`Burst` rules apply. */
export interface TokenBucketOptions {
  /**
   * qps is the refill rate in tokens per second: `undefined` or 0 means 5 (client-go's
   * `DefaultQPS`); a negative value or `Infinity` means no limit (pauses still apply).
   */
  qps?: number;
  /** burst is the bucket size: `undefined` or 0 means 10 (client-go's `DefaultBurst`). */
  burst?: number;
  clock?: Clock;
}

/** DEFAULT_QPS is client-go's default refill rate. */
export const DEFAULT_QPS = 5;
/** DEFAULT_BURST is client-go's default bucket size. */
export const DEFAULT_BURST = 10;

/** Refill arithmetic is in floating point; a token this close to whole counts as whole. */
const TOKEN_EPSILON = 1e-9;

interface Waiter {
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * TokenBucket is client-go's token-bucket limiter (`golang.org/x/time/rate`): it starts full with
 * `burst` tokens, refills at `qps` per second up to `burst`, and serves waiters first come, first
 * served. Beyond client-go, {@link TokenBucket.pause} halts it while the server pushes back: no
 * tokens are handed out and none accrue, so after a pause at most one request goes at once and
 * the rest follow at `qps`. Safe for concurrent use; one instance is shared per configuration.
 */
export class TokenBucket implements RateLimiter {
  readonly qps: number;
  readonly burst: number;
  readonly #clock: Clock;
  readonly #unlimited: boolean;
  #tokens: number;
  #last: number;
  #pausedUntil = 0;
  #waiters: Waiter[] = [];
  #head = 0;
  #timer: unknown = undefined;

  constructor(options: TokenBucketOptions = {}) {
    const qps = options.qps === undefined || options.qps === 0 ? DEFAULT_QPS : options.qps;
    const burst =
      options.burst === undefined || options.burst === 0 ? DEFAULT_BURST : options.burst;
    if (Number.isNaN(qps)) throw new RestConfigurationError('qps must be a number');
    if (!(burst > 0) || !Number.isFinite(burst)) {
      throw new RestConfigurationError(`burst must be a positive number, got ${burst}`);
    }
    this.#unlimited = qps < 0 || qps === Infinity;
    this.qps = this.#unlimited ? Infinity : qps;
    this.burst = this.#unlimited ? Infinity : burst;
    this.#clock = options.clock ?? systemClock;
    this.#tokens = this.burst;
    this.#last = this.#clock.now();
  }

  /** unlimited returns a bucket with no rate limit that still honours {@link pause}. */
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
    if (this.#pausedUntil !== 0) {
      const now = this.#clock.now();
      if (now < this.#pausedUntil) return false;
      this.#pausedUntil = 0;
    }
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
      const waiter: Waiter = { resolve, reject, signal, onAbort: undefined };
      if (signal) {
        waiter.onAbort = () => this.#cancel(waiter);
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.#waiters.push(waiter);
      this.#schedule();
    });
  }

  /** tryAcquire: see {@link RateLimiter.tryAcquire}. */
  tryAcquire(): boolean {
    return this.#head === this.#waiters.length && this.#take();
  }

  /** pause: see {@link RateLimiter.pause}. */
  pause(durationMs: number): void {
    if (!(durationMs > 0)) return;
    const now = this.#clock.now();
    const until = now + durationMs;
    if (until <= this.#pausedUntil) return;
    this.#refill(now);
    this.#pausedUntil = until;
    if (!this.#unlimited) {
      this.#tokens = Math.min(this.#tokens, 1);
      this.#last = until;
    }
    this.#reschedule();
  }

  /** waiting is how many callers are queued for a token (for tests and metrics). */
  get waiting(): number {
    return this.#waiters.length - this.#head;
  }

  #cancel(waiter: Waiter): void {
    const index = this.#waiters.indexOf(waiter, this.#head);
    if (index === -1) return;
    this.#waiters.splice(index, 1);
    waiter.reject(waiter.signal?.reason);
    if (this.waiting === 0) this.#clearTimer();
  }

  #delayUntilNextToken(now: number): number {
    if (this.#pausedUntil > now) return this.#pausedUntil - now;
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

  #reschedule(): void {
    if (this.waiting === 0) return;
    this.#clearTimer();
    this.#schedule();
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
      if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
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
