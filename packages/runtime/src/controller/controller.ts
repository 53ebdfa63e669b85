import type { KubernetesObject } from '@k/clientset';
import { linkSignals, systemClock, type Clock } from '@k/rest';
import { finalStateOf } from '../cache/object-key.js';
import { RuntimeError, isLeadershipLost } from '../errors.js';
import type { Informer } from '../informer/informer.js';
import { SILENT_LOGGER, type Logger } from '../logger.js';
import { NOOP_METRICS, type MetricsSink } from '../metrics/metrics-sink.js';
import type { WorkqueueRateLimiter } from '../workqueue/rate-limiters.js';
import { Workqueue } from '../workqueue/workqueue.js';
import { controllerMetrics, type ControllerMetrics } from './controller-metrics.js';
import type { Predicate } from './predicates.js';
import { whenAborted, type RunnableContext } from '../manager/runnable.js';
import { requestFromKey, requestKey, type Request } from './request.js';

/** ReconcileResult asks for a later reconcile: after `requeueAfterMs`, or rate-limited with `requeue`. */
export interface ReconcileResult {
  requeueAfterMs?: number;
  requeue?: boolean;
}

/** ReconcileContext is what a reconcile gets besides its request. */
export interface ReconcileContext {
  /**
   * signal aborts when the reconcile must stop: at once when leadership is lost (another
   * replica may be leading already), or when the graceful shutdown timeout runs out.
   */
  signal: AbortSignal;
  logger: Logger;
}

/**
 * Reconciler brings the world in line with the object `request` names; level-based and safe to
 * run any number of times. Return nothing (done), a {@link ReconcileResult}, or throw: a thrown
 * error requeues the request rate-limited (5 ms, 10 ms, … up to 1000 s) and never stops the
 * controller.
 */
export type Reconciler = (
  request: Request,
  context: ReconcileContext,
) => Promise<ReconcileResult | void> | ReconcileResult | void;

/** ControllerOptions configure a {@link Controller}. */
export interface ControllerOptions {
  /** maxConcurrentReconciles is how many requests are reconciled at once (default 1; never two for one request). */
  maxConcurrentReconciles?: number;
  rateLimiter?: WorkqueueRateLimiter<string>;
  /** cacheSyncTimeoutMs bounds the wait for the informers' first sync at start (default 2 minutes). */
  cacheSyncTimeoutMs?: number;
  /** gracefulShutdownTimeoutMs is how long running reconciles may finish after stop (default 30 s). */
  gracefulShutdownTimeoutMs?: number;
  logger?: Logger;
  metrics?: MetricsSink;
  clock?: Clock;
}

/**
 * Controller runs a reconciler over a rate-limited workqueue fed by informers
 * (controller-runtime's controller): `watch(informer, map)` turns each change that passes the
 * predicates into requests; `start(signal)` starts the informers it watches (those not running,
 * which it then owns and stops), waits for their sync (rejecting with `ERR_RUNTIME_NOT_SYNCED`
 * after `cacheSyncTimeoutMs`, its informers stopped, so a program can exit non-zero), and runs
 * `maxConcurrentReconciles` workers until `signal` aborts; then it lets queued and running
 * reconciles finish (up to `gracefulShutdownTimeoutMs`) and resolves. When `signal` aborts because
 * leadership was lost (its reason has the code `ERR_RUNTIME_LEADERSHIP_LOST`, as a
 * {@link LeaderElector}'s and a Manager's signals do), nothing more starts: the queue is
 * dropped, running reconciles' signals abort, and it resolves without waiting for them.
 * See {@link ControllerBuilder} for `for`/`owns`/`watches`.
 */
export class Controller {
  readonly name: string;
  readonly queue: Workqueue<string>;
  readonly #reconcile: Reconciler;
  readonly #informers = new Set<Informer<never>>();
  readonly #maxConcurrent: number;
  readonly #cacheSyncTimeoutMs: number;
  readonly #gracefulShutdownTimeoutMs: number;
  readonly #logger: Logger;
  readonly #metrics: ControllerMetrics;
  readonly #clock: Clock;
  #started = false;

  constructor(name: string, reconcile: Reconciler, options: ControllerOptions = {}) {
    this.name = name;
    this.#reconcile = reconcile;
    this.#maxConcurrent = Math.max(1, options.maxConcurrentReconciles ?? 1);
    this.#cacheSyncTimeoutMs = options.cacheSyncTimeoutMs ?? 2 * 60_000;
    this.#gracefulShutdownTimeoutMs = options.gracefulShutdownTimeoutMs ?? 30_000;
    this.#logger = options.logger ?? SILENT_LOGGER;
    this.#clock = options.clock ?? systemClock;
    const metrics = options.metrics ?? NOOP_METRICS;
    this.#metrics = controllerMetrics(metrics, name);
    this.queue = new Workqueue<string>({
      name,
      metrics,
      clock: this.#clock,
      ...(options.rateLimiter ? { rateLimiter: options.rateLimiter } : {}),
    });
  }

  /**
   * watch enqueues `map(object)` for every change of `informer` that passes all `predicates`
   * (deletes map the object's last known state).
   */
  watch<T extends KubernetesObject>(
    informer: Informer<T>,
    map: (object: T) => readonly Request[],
    predicates: readonly Predicate<T>[] = [],
  ): this {
    this.#informers.add(informer as unknown as Informer<never>);
    const enqueue = (object: T): void => {
      for (const request of map(object)) this.enqueue(request);
    };
    informer.addEventHandler({
      onAdd: (object) => {
        if (predicates.every((predicate) => predicate.create?.(object) ?? true)) enqueue(object);
      },
      onUpdate: (oldObject, newObject) => {
        if (predicates.every((predicate) => predicate.update?.(oldObject, newObject) ?? true)) {
          enqueue(newObject);
        }
      },
      onDelete: (deleted) => {
        const object = finalStateOf(deleted);
        if (predicates.every((predicate) => predicate.delete?.(object) ?? true)) enqueue(object);
      },
    });
    return this;
  }

  /** enqueue asks for a reconcile of `request` (deduplicated with any queued one). */
  enqueue(request: Request): void {
    this.queue.add(requestKey(request));
  }

  /** informers are the informers this controller watches (a Manager starts them as its cache). */
  get informers(): Informer<KubernetesObject>[] {
    return [...this.#informers] as unknown as Informer<KubernetesObject>[];
  }

  /** synced is true once every watched informer has synced. */
  get synced(): boolean {
    return [...this.#informers].every((informer) => informer.hasSynced);
  }

  /**
   * start runs the controller until `signal` aborts, then drains; resolves when stopped. When
   * `context.leadership` aborts (or `signal` with a leadership-lost reason) it stops at once,
   * draining or not.
   */
  async start(signal: AbortSignal, context: RunnableContext = {}): Promise<void> {
    if (this.#started) {
      throw new RuntimeError(
        'ERR_RUNTIME_CONFIGURATION',
        `controller ${this.name} was already started`,
      );
    }
    this.#started = true;
    // Informers nobody else started are this controller's: they stop with it.
    const owned = [...this.#informers].filter((informer) => !informer.running);
    for (const informer of owned) informer.start(signal);
    const stopOwned = (): Promise<unknown> => Promise.all(owned.map((informer) => informer.stop()));
    const sync = linkSignals([signal], { timeoutMs: this.#cacheSyncTimeoutMs, clock: this.#clock });
    try {
      await Promise.all([...this.#informers].map((informer) => informer.waitForSync(sync.signal)));
    } catch (error) {
      this.queue.shutDown();
      await stopOwned();
      if (signal.aborted) return;
      throw error;
    } finally {
      sync.dispose();
    }
    this.#logger.info('controller started', {
      controller: this.name,
      workers: this.#maxConcurrent,
    });
    // giveUp aborts the reconciles' signals (the grace period ran out, or leadership was lost);
    // lost ends every wait at once.
    const giveUp = new AbortController();
    const lost = new AbortController();
    this.#metrics.maxConcurrent.set(this.#metrics.labels, this.#maxConcurrent);
    const workers = Array.from({ length: this.#maxConcurrent }, () => this.#work(giveUp.signal));
    // Called in the abort itself, so no worker takes another key once leadership is gone.
    const loseLeadership = (reason: unknown): void => {
      if (lost.signal.aborted) return;
      this.queue.shutDown();
      giveUp.abort(reason);
      lost.abort(reason);
    };
    const leadership = context.leadership;
    const onLoss = (): void => loseLeadership(leadership?.reason);
    if (leadership?.aborted) onLoss();
    else leadership?.addEventListener('abort', onLoss, { once: true });
    const onStop = (): void => {
      if (isLeadershipLost(signal.reason)) loseLeadership(signal.reason);
    };
    if (signal.aborted) onStop();
    else signal.addEventListener('abort', onStop, { once: true });
    try {
      await Promise.race([whenAborted(signal), whenAborted(lost.signal)]);
      if (!lost.signal.aborted) {
        this.#logger.info('controller stopping', { controller: this.name });
        const timer = setTimeout(
          () => giveUp.abort(new Error('graceful shutdown timed out')),
          this.#gracefulShutdownTimeoutMs,
        );
        const drained = (async () => {
          await this.queue.shutDownWithDrain(giveUp.signal);
          await Promise.all(workers);
        })();
        // Leadership can still be lost while draining: then nothing more waits for it.
        await Promise.race([drained, whenAborted(lost.signal)]);
        clearTimeout(timer);
      }
      if (lost.signal.aborted) {
        this.#logger.warn('leadership lost; controller stopped without draining', {
          controller: this.name,
        });
      }
    } finally {
      leadership?.removeEventListener('abort', onLoss);
      signal.removeEventListener('abort', onStop);
    }
    await stopOwned();
  }

  async #work(signal: AbortSignal): Promise<void> {
    for (let key = await this.queue.get(); key !== undefined; key = await this.queue.get()) {
      if (signal.aborted) {
        // Handed out in the same turn as the abort: not started.
        this.queue.done(key);
        break;
      }
      this.#metrics.activeWorkers.inc(this.#metrics.labels);
      try {
        await this.#reconcileKey(key, signal);
      } finally {
        this.#metrics.activeWorkers.dec(this.#metrics.labels);
        this.queue.done(key);
      }
    }
  }

  async #reconcileKey(key: string, signal: AbortSignal): Promise<void> {
    const request = requestFromKey(key);
    const started = this.#clock.now();
    const { labels } = this.#metrics;
    let outcome: 'success' | 'error' | 'requeue' | 'requeue_after';
    try {
      const result = await this.#reconcile(request, { signal, logger: this.#logger });
      if (result && result.requeueAfterMs !== undefined && result.requeueAfterMs > 0) {
        this.queue.forget(key);
        this.queue.addAfter(key, result.requeueAfterMs);
        outcome = 'requeue_after';
      } else if (result?.requeue) {
        this.queue.addRateLimited(key);
        outcome = 'requeue';
      } else {
        this.queue.forget(key);
        outcome = 'success';
      }
    } catch (error) {
      this.queue.addRateLimited(key);
      outcome = 'error';
      this.#metrics.errors.inc(labels);
      this.#logger.error('reconciler error', {
        controller: this.name,
        namespace: request.namespace,
        name: request.name,
        error: error instanceof Error ? error.message : String(error),
      });
    }
    this.#metrics.total.inc({ ...labels, result: outcome });
    this.#metrics.time.observe(labels, (this.#clock.now() - started) / 1000);
  }
}
