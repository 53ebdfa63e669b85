import type { KubernetesObject } from '@k/clientset';
import { linkSignals, systemClock, type Clock } from '@k/rest';
import { finalStateOf, objectKey } from '../cache/object-key.js';
import { RuntimeError, TerminalError, isLeadershipLost } from '../errors.js';
import type { Informer, InformerHealth } from '../informer/informer.js';
import { jsonLogger, withFields, type Logger } from '../logger.js';
import { NOOP_METRICS, type MetricsSink } from '../metrics/metrics-sink.js';
import type { WorkqueueRateLimiter } from '../workqueue/rate-limiters.js';
import { Workqueue } from '../workqueue/workqueue.js';
import { OwnWrites, versionOf } from '../writes/own-writes.js';
import { controllerMetrics, type ControllerMetrics } from './controller-metrics.js';
import type { Predicate } from './predicates.js';
import { whenAborted, type RunnableContext } from '../manager/runnable.js';
import { requestFromKey, requestKey, type ReconcileRequest } from './request.js';

/**
 * ReconcileResult asks for another reconcile after `requeueAfterMs` (a periodic check, waiting on
 * something outside the cluster). To retry a failure, throw: that is retried with backoff.
 */
export interface ReconcileResult {
  requeueAfterMs?: number | undefined;
}

/** ReconcileContext is what a reconcile gets besides its object. */
export interface ReconcileContext<T, C> {
  /** request names the object (namespace `''` when cluster-scoped). */
  readonly request: ReconcileRequest;
  /** client is the `for()` kind's client in the object's namespace: write the object (or its status) with it. */
  readonly client: C;
  /**
   * signal aborts when the reconcile must stop: at once when leadership is lost (another
   * replica may be leading already), or when the graceful shutdown timeout runs out.
   */
  readonly signal: AbortSignal;
  /** logger writes with the controller's name and the object's namespace and name. */
  readonly logger: Logger;
  /**
   * remember keeps the object as a write of yours returned it (an update, a patch, an apply of it
   * or its status): until the cache has that version, the next reconcile gets it instead of the
   * cache's older copy, so it does not send the same write twice; and the change that write makes
   * does not enqueue the object again (this reconcile has seen it: java-operator-sdk's own-write
   * filter). `withFinalizer` remembers its patches.
   */
  readonly remember: (written: T) => void;
}

/**
 * Reconciler brings the world in line with `object`, the current state of the `for()` kind's
 * object from the cache (with your own remembered writes): level-based and safe to run any number
 * of times. Return nothing (done) or `{ requeueAfterMs }`; throw to retry with backoff (5 ms,
 * 10 ms, … up to 1000 s), or throw a {@link TerminalError} for a failure retrying cannot fix. It
 * is not called for an object that is gone: clean up what owner references cannot with a
 * finalizer ({@link withFinalizer}), since a delete can happen while no replica runs.
 */
export type Reconciler<T, C> = (
  object: T,
  context: ReconcileContext<T, C>,
) => Promise<ReconcileResult | void> | ReconcileResult | void;

/** TerminalEvents is where a controller tells terminal failures on the object (an `EventRecorder`). */
export interface TerminalEvents {
  warning(object: KubernetesObject, reason: string, note: string): void;
}

/** ControllerOptions configure a {@link Controller}. */
export interface ControllerOptions {
  /** maxConcurrentReconciles is how many requests are reconciled at once (default 1; never two for one request). */
  maxConcurrentReconciles?: number | undefined;
  rateLimiter?: WorkqueueRateLimiter<string> | undefined;
  /** cacheSyncTimeoutMs bounds the wait for the informers' first sync at start (default 2 minutes). */
  cacheSyncTimeoutMs?: number | undefined;
  /** gracefulShutdownTimeoutMs is how long running reconciles may finish after stop (default 30 s). */
  gracefulShutdownTimeoutMs?: number | undefined;
  /** logger (default: {@link jsonLogger} at info, to stderr). */
  logger?: Logger | undefined;
  metrics?: MetricsSink | undefined;
  /** recorder, when set, gets a `ReconcileFailed` warning Event on the object for each terminal error. */
  recorder?: TerminalEvents | undefined;
  clock?: Clock | undefined;
}

/** ControllerSource is the `for()` kind of a {@link Controller}: its informer, and its client. */
export interface ControllerSource<T extends KubernetesObject, C> {
  informer: Informer<T>;
  /** client is the kind's client (`inNamespace` gives it for each object's namespace when it has one). */
  client: C;
  reconcile: Reconciler<T, C>;
  /** predicates filter the kind's changes. */
  predicates?: readonly Predicate<T>[] | undefined;
}

/** WatchedInformer is what a controller (and its Manager) needs of each informer it watches, whatever its kind. */
export interface WatchedInformer {
  readonly resource: string;
  readonly store: { readonly size: number };
  readonly running: boolean;
  health(): InformerHealth;
  readonly hasSynced: boolean;
  start(signal?: AbortSignal): void;
  stop(): Promise<void>;
  waitForSync(signal?: AbortSignal): Promise<void>;
}

/**
 * MAX_RECORDED_CHANGES bounds the changes kept while one key is reconciled: past it, some are
 * surely not the reconcile's own, and the key is enqueued again at its end.
 */
const MAX_RECORDED_CHANGES = 64;

/** CLIENT_CACHE_LIMIT bounds the per-namespace clients kept (they are cheap to make again). */
const CLIENT_CACHE_LIMIT = 1024;

/**
 * Controller runs a reconciler over a rate-limited workqueue fed by informers
 * (controller-runtime's controller); build one with a Manager's `controller(name)` or a
 * {@link ControllerBuilder}. Each change of the `for()` kind enqueues the object, `watch()`
 * (what `owns()` and `watches()` use) maps changes of other informers to requests; a reconcile
 * gets the object from the `for()` informer's cache. `start(signal)` starts the informers it
 * watches (those not running, which it then owns and stops), waits for their sync (rejecting with
 * `ERR_RUNTIME_NOT_SYNCED` after `cacheSyncTimeoutMs`, its informers stopped, so a program can
 * exit non-zero), and runs `maxConcurrentReconciles` workers until `signal` aborts; then it lets
 * queued and running reconciles finish (up to `gracefulShutdownTimeoutMs`) and resolves. When
 * `signal` aborts because leadership was lost (its reason has the code
 * `ERR_RUNTIME_LEADERSHIP_LOST`, as a {@link LeaderElector}'s and a Manager's signals do), nothing
 * more starts: the queue is dropped, running reconciles' signals abort, and it resolves without
 * waiting for them.
 */
export class Controller<T extends KubernetesObject = KubernetesObject, C = unknown> {
  readonly name: string;
  readonly queue: Workqueue<string>;
  /** informer is the `for()` kind's informer. */
  readonly informer: Informer<T>;
  readonly #client: C;
  readonly #clients = new Map<string, C>();
  readonly #reconcile: Reconciler<T, C>;
  readonly #cache: OwnWrites<T>;
  /** ownVersions are the resourceVersions of remembered writes whose change was not delivered yet. */
  readonly #ownVersions = new Map<string, bigint>();
  /**
   * recording holds, per key being reconciled, the versions of the changes delivered meanwhile
   * (`undefined` for one without an integer version) and those the reconcile remembered writing:
   * at its end, a change that is not its own enqueues the key again.
   */
  readonly #recording = new Map<
    string,
    { delivered: (bigint | undefined)[]; overflowed: boolean; own: Set<bigint> }
  >();
  readonly #informers = new Set<WatchedInformer>();
  readonly #maxConcurrent: number;
  readonly #cacheSyncTimeoutMs: number;
  readonly #gracefulShutdownTimeoutMs: number;
  readonly #logger: Logger;
  readonly #metrics: ControllerMetrics;
  readonly #recorder: TerminalEvents | undefined;
  readonly #clock: Clock;
  #started = false;

  constructor(name: string, source: ControllerSource<T, C>, options: ControllerOptions = {}) {
    this.name = name;
    this.informer = source.informer;
    this.#client = source.client;
    this.#reconcile = source.reconcile;
    this.#cache = new OwnWrites(source.informer);
    this.#maxConcurrent = Math.max(1, options.maxConcurrentReconciles ?? 1);
    this.#cacheSyncTimeoutMs = options.cacheSyncTimeoutMs ?? 2 * 60_000;
    this.#gracefulShutdownTimeoutMs = options.gracefulShutdownTimeoutMs ?? 30_000;
    this.#logger = options.logger ?? jsonLogger();
    this.#recorder = options.recorder;
    this.#clock = options.clock ?? systemClock;
    const metrics = options.metrics ?? NOOP_METRICS;
    this.#metrics = controllerMetrics(metrics, name);
    this.queue = new Workqueue<string>({
      name,
      metrics,
      clock: this.#clock,
      ...(options.rateLimiter ? { rateLimiter: options.rateLimiter } : {}),
    });
    this.watch(
      source.informer,
      (object) =>
        this.#isOwnWrite(object)
          ? []
          : [{ namespace: object.metadata?.namespace ?? '', name: object.metadata?.name ?? '' }],
      source.predicates,
    );
  }

  /**
   * watch enqueues `map(object)` for every change of `informer` that passes all `predicates`
   * (deletes map the object's last known state).
   */
  watch<O extends KubernetesObject>(
    informer: Informer<O>,
    map: (object: O) => readonly ReconcileRequest[],
    predicates: readonly Predicate<O>[] = [],
  ): this {
    this.#informers.add(informer);
    const enqueue = (object: O): void => {
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
  enqueue(request: ReconcileRequest): void {
    this.queue.add(requestKey(request));
  }

  /** informers are the informers this controller watches (a Manager starts them as its cache). */
  get informers(): readonly WatchedInformer[] {
    return [...this.#informers];
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
    const object = this.#cache.get(key);
    if (object === undefined) {
      // Gone (or no longer selected): nothing to reconcile; a finalizer handles what must be.
      this.queue.forget(key);
      this.#ownVersions.delete(key);
      return;
    }
    const request = requestFromKey(key);
    const started = this.#clock.now();
    const { labels } = this.#metrics;
    const logger = withFields(this.#logger, {
      controller: this.name,
      ...(request.namespace ? { namespace: request.namespace } : {}),
      name: request.name,
    });
    const context: ReconcileContext<T, C> = {
      request,
      client: this.#clientIn(request.namespace),
      signal,
      logger,
      remember: (written) => this.#remember(written),
    };
    let outcome: 'success' | 'error' | 'requeue_after';
    this.#recording.set(key, { delivered: [], overflowed: false, own: new Set() });
    try {
      const result = await this.#reconcile(object, context);
      this.queue.forget(key);
      if (result && result.requeueAfterMs !== undefined && result.requeueAfterMs > 0) {
        this.queue.addAfter(key, result.requeueAfterMs);
        outcome = 'requeue_after';
      } else {
        outcome = 'success';
      }
    } catch (error) {
      outcome = 'error';
      this.#metrics.errors.inc(labels);
      const message = error instanceof Error ? error.message : String(error);
      if (TerminalError.isInstance(error)) {
        // Not retried until the object changes; the backoff of its key starts over then.
        this.queue.forget(key);
        this.#metrics.terminalErrors.inc(labels);
        logger.error('reconcile failed terminally; not retried until the object changes', {
          error: message,
        });
        this.#recorder?.warning(object, 'ReconcileFailed', message);
      } else {
        this.queue.addRateLimited(key);
        logger.error('reconcile failed; retrying with backoff', { error: message });
      }
    }
    this.#endRecording(key);
    this.#metrics.total.inc({ ...labels, result: outcome });
    this.#metrics.time.observe(labels, (this.#clock.now() - started) / 1000);
  }

  /** endRecording enqueues `key` again when a change delivered during its reconcile was not the reconcile's own. */
  #endRecording(key: string): void {
    const recording = this.#recording.get(key);
    this.#recording.delete(key);
    if (!recording) return;
    let newest: bigint | undefined;
    let others = recording.overflowed;
    for (const version of recording.delivered) {
      if (version === undefined || !recording.own.has(version)) others = true;
      if (version !== undefined && (newest === undefined || version > newest)) newest = version;
    }
    const own = this.#ownVersions.get(key);
    if (own !== undefined && newest !== undefined && newest >= own) this.#ownVersions.delete(key);
    if (others) this.queue.add(key);
  }

  /**
   * remember keeps a write of the reconciler for the next reconcile, and its version, so the
   * change it makes is not reconciled again (java-operator-sdk's own-write filter): the reconcile
   * that wrote it has seen that state already.
   */
  #remember(written: T): void {
    this.#cache.remember(written);
    const version = versionOf(written);
    if (version === undefined) return;
    const key = objectKey(written);
    this.#ownVersions.set(key, version);
    this.#recording.get(key)?.own.add(version);
  }

  /**
   * isOwnWrite is true for the delivered change a remembered write made (once; it then forgets
   * it), and for any change delivered while its key is reconciled: the end of that reconcile
   * decides (its write's answer may come after the change itself).
   */
  #isOwnWrite(object: T): boolean {
    const key = objectKey(object);
    const recording = this.#recording.get(key);
    if (recording) {
      if (recording.delivered.length < MAX_RECORDED_CHANGES) {
        recording.delivered.push(versionOf(object));
      } else {
        recording.overflowed = true;
      }
      return true;
    }
    const own = this.#ownVersions.get(key);
    if (own === undefined) return false;
    const version = versionOf(object);
    // An older change, delivered before the write's own: still to come.
    if (version !== undefined && version < own) return false;
    this.#ownVersions.delete(key);
    return version === own;
  }

  /** clientIn is the `for()` client in `namespace`, when it can be scoped (a @k/clientset client). */
  #clientIn(namespace: string): C {
    const client = this.#client as C & {
      namespace?: unknown;
      inNamespace?: (namespace: string) => C;
    };
    if (!namespace || typeof client.inNamespace !== 'function' || client.namespace === namespace) {
      return this.#client;
    }
    let scoped = this.#clients.get(namespace);
    if (scoped === undefined) {
      if (this.#clients.size >= CLIENT_CACHE_LIMIT) this.#clients.clear();
      scoped = client.inNamespace(namespace);
      this.#clients.set(namespace, scoped);
    }
    return scoped;
  }
}
