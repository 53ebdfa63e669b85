import { systemClock, type Clock } from '@k/rest';
import { NOOP_METRICS, type MetricsSink } from '../metrics/metrics-sink.js';
import { DelayHeap } from './delay-heap.js';
import { Fifo } from './fifo.js';
import { defaultControllerRateLimiter, type WorkqueueRateLimiter } from './rate-limiters.js';
import { workqueueMetrics, type WorkqueueMetrics } from './workqueue-metrics.js';

/** WorkqueueOptions configure a {@link Workqueue}. */
export interface WorkqueueOptions<K> {
  /** name labels the queue's metrics (`workqueue_depth{name="…"}`); without one nothing is recorded. */
  name?: string | undefined;
  /** rateLimiter spaces the retries of `addRateLimited` (default {@link defaultControllerRateLimiter}). */
  rateLimiter?: WorkqueueRateLimiter<K> | undefined;
  /** metrics receives the queue's metrics when it has a `name` (default: none). */
  metrics?: MetricsSink | undefined;
  /** clock times delays and metrics (default: the system clock; its timers keep the process alive). */
  clock?: Clock | undefined;
}

type Waiter<K> = (key: K | undefined) => void;

/**
 * Workqueue is client-go's rate-limiting, delaying work queue for keys of type `K` (compared with
 * `===`; use strings such as `namespace/name`):
 * - a key added while it is queued is queued once (dedup);
 * - a key is handed to one worker at a time: added while a worker has it (between `get` and
 *   `done`), it is queued again only when that worker calls `done`;
 * - `addAfter` makes a key wait first (an earlier time wins over a later one), `addRateLimited`
 *   waits as long as the rate limiter says, `forget` clears the key's failure history;
 * - `shutDown` abandons what is queued or waiting at once, `shutDownWithDrain` lets workers finish
 *   what is queued and in progress (until its signal aborts). After either, adds are ignored and
 *   `get` resolves `undefined` once there is nothing left to hand out.
 * Keys are handed out in the order they were queued; workers waiting in `get` are served in the
 * order they asked. A delayed key is pending work: its timer keeps a `node` process alive.
 */
export class Workqueue<K extends NonNullable<unknown> = string> {
  readonly #queue = new Fifo<K>();
  readonly #dirty = new Set<K>();
  /** processing maps each key a worker holds to when it got it (0 without metrics). */
  readonly #processing = new Map<K, number>();
  readonly #queuedAt = new Map<K, number>();
  readonly #waiters = new Fifo<Waiter<K>>();
  readonly #waiting = new DelayHeap<K>();
  readonly #rateLimiter: WorkqueueRateLimiter<K>;
  readonly #clock: Clock;
  readonly #metrics: WorkqueueMetrics | undefined;
  #timer: unknown;
  #timerAt = Infinity;
  #shuttingDown = false;
  #drained: (() => void) | undefined;

  constructor(options: WorkqueueOptions<K> = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<K>(this.#clock);
    this.#metrics =
      options.name !== undefined && options.metrics && options.metrics !== NOOP_METRICS
        ? workqueueMetrics(options.metrics, options.name, {
            depth: () => this.#queue.length,
            unfinishedWorkSeconds: () => this.#unfinishedWorkSeconds(),
            longestRunningProcessorSeconds: () => this.#longestRunningSeconds(),
          })
        : undefined;
  }

  /** length is how many keys are queued (not counting those in progress or waiting). */
  get length(): number {
    return this.#queue.length;
  }

  /** processing is how many keys workers hold (between `get` and `done`). */
  get processing(): number {
    return this.#processing.size;
  }

  /** delayed is how many keys wait for their time (`addAfter`, `addRateLimited`). */
  get delayed(): number {
    return this.#waiting.size;
  }

  /** shuttingDown is true once `shutDown` or `shutDownWithDrain` was called. */
  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** add queues `key` unless it is queued already; a key in progress is queued again at `done`. */
  add(key: K): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#dirty.add(key);
    const metrics = this.#metrics;
    if (metrics) metrics.adds.inc(metrics.labels);
    if (this.#processing.has(key)) return;
    this.#enqueue(key);
  }

  #enqueue(key: K): void {
    const waiter = this.#waiters.shift();
    if (waiter) {
      if (this.#metrics) this.#queuedAt.set(key, this.#clock.now());
      waiter(this.#take(key));
      return;
    }
    this.#queue.push(key);
    if (this.#metrics) this.#queuedAt.set(key, this.#clock.now());
  }

  #take(key: K): K {
    this.#dirty.delete(key);
    const metrics = this.#metrics;
    if (metrics) {
      const now = this.#clock.now();
      const queuedAt = this.#queuedAt.get(key);
      this.#queuedAt.delete(key);
      if (queuedAt !== undefined)
        metrics.queueDuration.observe(metrics.labels, (now - queuedAt) / 1000);
      this.#processing.set(key, now);
    } else {
      this.#processing.set(key, 0);
    }
    return key;
  }

  /**
   * get resolves with the next key, waiting for one when the queue is empty; the caller owns it
   * until it calls `done(key)`. Resolves `undefined` once the queue is shut down and has nothing
   * left to hand out: the worker's signal to stop.
   */
  get(): Promise<K | undefined> {
    const key = this.#queue.shift();
    if (key !== undefined) return Promise.resolve(this.#take(key));
    if (this.#shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /**
   * done says the worker finished `key`. A key added again meanwhile is queued now. Calling it
   * for a key not in progress does nothing.
   */
  done(key: K): void {
    const startedAt = this.#processing.get(key);
    if (startedAt === undefined) return;
    this.#processing.delete(key);
    const metrics = this.#metrics;
    if (metrics)
      metrics.workDuration.observe(metrics.labels, (this.#clock.now() - startedAt) / 1000);
    if (this.#dirty.has(key)) this.#enqueue(key);
    else if (this.#shuttingDown) this.#checkDrained();
  }

  /** addAfter queues `key` after `delayMs` (at once when ≤ 0); a key already waiting keeps the earlier time. */
  addAfter(key: K, delayMs: number): void {
    if (this.#shuttingDown) return;
    if (!(delayMs > 0)) {
      this.add(key);
      return;
    }
    const readyAt = this.#clock.now() + delayMs;
    this.#waiting.add(key, readyAt);
    if (readyAt < this.#timerAt) this.#arm(readyAt);
  }

  /** addRateLimited queues `key` after the rate limiter's delay for it (one more failure counted). */
  addRateLimited(key: K): void {
    if (this.#shuttingDown) return;
    const metrics = this.#metrics;
    if (metrics) metrics.retries.inc(metrics.labels);
    this.addAfter(key, this.#rateLimiter.when(key));
  }

  /** forget clears the rate limiter's history of `key` (call it when the key was processed successfully). */
  forget(key: K): void {
    this.#rateLimiter.forget(key);
  }

  /** numRequeues is how many times `key` was rate-limited since it was last forgotten. */
  numRequeues(key: K): number {
    return this.#rateLimiter.numRequeues(key);
  }

  #arm(readyAt: number): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timerAt = readyAt;
    this.#timer = this.#clock.setTimeout(() => this.#fire(), readyAt - this.#clock.now());
  }

  #fire(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    for (const key of this.#waiting.takeReady(this.#clock.now())) this.add(key);
    const next = this.#waiting.nextReadyAt();
    if (next !== undefined) this.#arm(next);
  }

  #stopWaiting(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Infinity;
    this.#waiting.clear();
  }

  /**
   * shutDown stops the queue at once: queued and waiting keys are dropped, workers waiting in
   * `get` get `undefined`, keys in progress may still be marked `done`.
   */
  shutDown(): void {
    this.#shuttingDown = true;
    this.#stopWaiting();
    this.#queue.clear();
    this.#dirty.clear();
    this.#queuedAt.clear();
    this.#releaseWaiters();
    this.#drained?.();
  }

  /**
   * shutDownWithDrain stops taking keys (waiting ones are dropped) and resolves once workers have
   * taken every queued key and marked each `done` — including keys re-added while in progress.
   * When `signal` aborts first, the rest is abandoned as by `shutDown`.
   */
  shutDownWithDrain(signal?: AbortSignal): Promise<void> {
    this.#shuttingDown = true;
    this.#stopWaiting();
    if (signal?.aborted) {
      this.shutDown();
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const onAbort = (): void => this.shutDown();
      signal?.addEventListener('abort', onAbort, { once: true });
      const previous = this.#drained;
      this.#drained = () => {
        signal?.removeEventListener('abort', onAbort);
        this.#drained = undefined;
        previous?.();
        resolve();
      };
      this.#checkDrained();
    });
  }

  #checkDrained(): void {
    if (this.#queue.length === 0) this.#releaseWaiters();
    if (this.#queue.length === 0 && this.#processing.size === 0) this.#drained?.();
  }

  #releaseWaiters(): void {
    for (let waiter = this.#waiters.shift(); waiter; waiter = this.#waiters.shift()) {
      waiter(undefined);
    }
  }

  #unfinishedWorkSeconds(): number {
    const now = this.#clock.now();
    let total = 0;
    for (const startedAt of this.#processing.values()) total += now - startedAt;
    return total / 1000;
  }

  #longestRunningSeconds(): number {
    const now = this.#clock.now();
    let longest = 0;
    for (const startedAt of this.#processing.values()) longest = Math.max(longest, now - startedAt);
    return longest / 1000;
  }
}
