import {
  labelSelectorText,
  type KubernetesObject,
  type LabelSelectorInput,
  type ResourceDescriptor,
} from '@k/clientset';
import { systemClock, type Clock } from '@k/rest';
import { IndexedStore, type IndexFunction, type Lister } from '../cache/indexed-store.js';
import { DeletedFinalStateUnknown, objectKey } from '../cache/object-key.js';
import { StringInterner } from '../cache/string-interner.js';
import { InformerError } from '../errors.js';
import { SILENT_LOGGER, type Logger } from '../logger.js';
import type { MetricsSink } from '../metrics/metrics-sink.js';
import type { ExponentialBackoff } from './backoff.js';
import { HandlerSet, type EventHandler, type HandlerRegistration } from './handler-set.js';
import type { ReflectorState } from './reflector-health.js';
import { Reflector, type ListerWatcher, type ReflectorSink } from './reflector.js';
import { dropManagedFields } from './transforms.js';

/** InformerOptions configure an {@link Informer}. */
export interface InformerOptions<T> {
  /** description names the resource in errors and logs (default: from the client, `configmaps in namespace a`). */
  description?: string | undefined;
  labelSelector?: LabelSelectorInput | undefined;
  fieldSelector?: string | undefined;
  /** indexers are extra indexes of the store (the `namespace` index is always there). */
  indexers?: Readonly<Record<string, IndexFunction<T>>> | undefined;
  /**
   * transform changes each object before it is stored (default {@link dropManagedFields}, which
   * saves about 40 % of the memory of typical objects); `false` stores objects as received.
   * Objects of a typed client that arrive without `apiVersion` and `kind` (list items) get them.
   */
  transform?: ((object: T) => T) | false | undefined;
  /** watchList streams the initial list when the server serves it (default true; falls back to LIST). */
  watchList?: boolean | undefined;
  /** pageSize is the `limit` of list pages (default 500). */
  pageSize?: number | undefined;
  /** watchIdleTimeoutMs replaces a watch that received nothing for this long (default: the client's, 5 minutes). */
  watchIdleTimeoutMs?: number | undefined;
  backoff?: ExponentialBackoff | undefined;
  clock?: Clock | undefined;
  random?: (() => number) | undefined;
  logger?: Logger | undefined;
  /** metrics counts relists, watch restarts and failures (`informer_relists_total{resource}`, …). */
  metrics?: MetricsSink | undefined;
}

/** InformerHealth is a snapshot of how an informer is doing. */
export interface InformerHealth {
  resource: string;
  state: ReflectorState;
  /** synced: the first list is in the cache. */
  synced: boolean;
  /** ready: synced, running, and the last attempt to list or watch did not fail. */
  ready: boolean;
  resourceVersion: string;
  lastEventAt: number | undefined;
  lastListAt: number | undefined;
  watchRestarts: number;
  relists: number;
  failures: number;
  consecutiveFailures: number;
  lastError: InformerError | undefined;
}

function descriptorOf(source: unknown): ResourceDescriptor | undefined {
  const descriptor = (source as { descriptor?: ResourceDescriptor }).descriptor;
  return typeof descriptor?.plural === 'string' ? descriptor : undefined;
}

function describeSource(source: unknown): string | undefined {
  const client = source as {
    descriptor?: { plural?: unknown; group?: unknown };
    namespace?: unknown;
    metadataOnly?: unknown;
  };
  const plural = client.descriptor?.plural;
  if (typeof plural !== 'string') return undefined;
  const group = typeof client.descriptor?.group === 'string' ? client.descriptor.group : '';
  const resource = `${group ? `${plural}.${group}` : plural}${client.metadataOnly === true ? ' (metadata)' : ''}`;
  return typeof client.namespace === 'string' && client.namespace !== ''
    ? `${resource} in namespace ${client.namespace}`
    : resource;
}

/**
 * cacheTransform is what the reflector runs on each received object: for objects of a
 * @k/clientset resource client it shares their repeated strings ({@link StringInterner}) unless
 * their decoder did (a protobuf watch's), and runs the informer's transform; then it adds the
 * resource's `apiVersion` and `kind` to objects that arrive without them (the items of a list
 * do), so cached objects can always be referred to (events, owner references).
 */
function cacheTransform<T extends KubernetesObject>(
  descriptor: ResourceDescriptor | undefined,
  transform: ((object: T) => T) | undefined,
): ((object: T, stringsShared: boolean) => T) | undefined {
  if (!descriptor) return transform;
  const interner = new StringInterner();
  const apiVersion = descriptor.group
    ? `${descriptor.group}/${descriptor.version}`
    : descriptor.version;
  const { kind } = descriptor;
  const share = (object: T, stringsShared: boolean): T =>
    stringsShared ? object : interner.internTree(object);
  // The default transform only deletes a member: run it first so the walk skips managedFields
  // (a list's items arrive with them). A transform of your own gets the tree fresh from the
  // parser, which is the only kind the interner may change in place.
  const prepare: (received: T, stringsShared: boolean) => T =
    transform === undefined
      ? share
      : transform === dropManagedFields
        ? (received, stringsShared) => share(transform(received), stringsShared)
        : (received, stringsShared) => transform(share(received, stringsShared));
  return (received, stringsShared) => {
    const object = prepare(received, stringsShared);
    if (kind && object.kind === undefined) {
      (object as { kind?: string }).kind = kind;
      (object as { apiVersion?: string }).apiVersion ??= apiVersion;
    }
    return object;
  };
}

/**
 * Informer keeps a local cache of one resource in step with the server and tells handlers about
 * every change: client-go's shared index informer on a {@link Reflector} (which lists, watches,
 * resumes, relists and backs off by itself and never stops on an error). Handlers run in the
 * order changes arrive, synchronously: keep them short (enqueue a key), a handler that throws is
 * logged and the others still run. A relist that misses an object delivers a
 * {@link DeletedFinalStateUnknown} tombstone to `onDelete`.
 *
 * `start()` runs it until `stop()` (or the signal given to `start`); while it runs, its watch
 * connection and its retry waits keep a `node` program alive, while resync timers do not.
 */
export class Informer<T extends KubernetesObject = KubernetesObject> implements ReflectorSink<T> {
  readonly resource: string;
  /** descriptor is the resource's, when the source is a @k/clientset resource client. */
  readonly descriptor: ResourceDescriptor | undefined;
  /** source is what it lists and watches (the client it was made from). */
  readonly source: ListerWatcher<T>;
  readonly #store: IndexedStore<T>;
  readonly #reflector: Reflector<T>;
  readonly #handlers: HandlerSet<T>;
  readonly #errorHandlers = new Set<(error: InformerError) => void>();
  readonly #logger: Logger;
  #synced = false;
  #syncWaiters: (() => void)[] = [];
  #controller: AbortController | undefined;
  #running: Promise<void> | undefined;

  constructor(source: ListerWatcher<T>, options: InformerOptions<T> = {}) {
    this.resource = options.description ?? describeSource(source) ?? 'objects';
    this.descriptor = descriptorOf(source);
    this.source = source;
    this.#logger = options.logger ?? SILENT_LOGGER;
    this.#store = new IndexedStore<T>(options.indexers);
    const clock = options.clock ?? systemClock;
    this.#handlers = new HandlerSet<T>(this.#store, this.#logger, this.resource);
    const ownTransform =
      options.transform === false ? undefined : (options.transform ?? dropManagedFields);
    const transform = cacheTransform<T>(this.descriptor, ownTransform);
    const labelSelector = labelSelectorText(options.labelSelector);
    this.#reflector = new Reflector<T>(source, this, {
      description: this.resource,
      clock,
      logger: this.#logger,
      ...(options.metrics ? { metrics: options.metrics } : {}),
      onError: (error) => this.#emitError(error),
      ...(labelSelector ? { labelSelector } : {}),
      ...(options.fieldSelector ? { fieldSelector: options.fieldSelector } : {}),
      ...(transform ? { transform } : {}),
      ...(ownTransform === dropManagedFields ? { omitManagedFields: true } : {}),
      ...(options.watchList !== undefined ? { watchList: options.watchList } : {}),
      ...(options.pageSize !== undefined ? { pageSize: options.pageSize } : {}),
      ...(options.watchIdleTimeoutMs !== undefined
        ? { watchIdleTimeoutMs: options.watchIdleTimeoutMs }
        : {}),
      ...(options.backoff ? { backoff: options.backoff } : {}),
      ...(options.random ? { random: options.random } : {}),
    });
  }

  /** lister reads the cache (see {@link Lister}); `store` is the same object with its indexes. */
  get lister(): Lister<T> {
    return this.#store;
  }

  get store(): IndexedStore<T> {
    return this.#store;
  }

  /** hasSynced is true once the first list is in the cache and was delivered to the handlers. */
  get hasSynced(): boolean {
    return this.#synced;
  }

  /** running is true between `start()` and the end of `stop()`. */
  get running(): boolean {
    return this.#running !== undefined;
  }

  /**
   * addEventHandler adds a handler. Added after the informer synced, it first receives every
   * cached object as `onAdd(object, true)`. `resyncPeriodMs` (at least 1 s) re-delivers every
   * cached object as `onUpdate(object, object)` that often, for level-based reconcilers.
   */
  addEventHandler(
    handler: EventHandler<T>,
    options: { resyncPeriodMs?: number | undefined } = {},
  ): HandlerRegistration {
    return this.#handlers.add(handler, options.resyncPeriodMs ?? 0, this.#synced);
  }

  /** addErrorHandler receives every list or watch failure (the informer retries by itself); returns a remover. */
  addErrorHandler(handler: (error: InformerError) => void): () => void {
    this.#errorHandlers.add(handler);
    return () => this.#errorHandlers.delete(handler);
  }

  #emitError(error: InformerError): void {
    for (const handler of this.#errorHandlers) {
      try {
        handler(error);
      } catch (handlerError) {
        this.#logger.error('informer error handler threw', {
          resource: this.resource,
          error: String(handlerError),
        });
      }
    }
  }

  /** start begins listing and watching (once; later calls do nothing) until `stop()` or `signal`. */
  start(signal?: AbortSignal): void {
    if (this.#running) return;
    const controller = new AbortController();
    this.#controller = controller;
    if (signal) {
      if (signal.aborted) controller.abort(signal.reason);
      else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
    }
    this.#handlers.startResync();
    this.#running = this.#reflector.run(controller.signal).finally(() => {
      this.#handlers.stopResync();
      this.#running = undefined;
    });
  }

  /** stop ends the watch and every retry, and resolves once the informer stopped. */
  async stop(): Promise<void> {
    this.#controller?.abort();
    await this.#running;
  }

  /**
   * waitForSync resolves once the informer synced. When `signal` aborts first it rejects with an
   * {@link InformerError} `ERR_RUNTIME_NOT_SYNCED` whose cause is the informer's last error.
   */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.#syncWaiters = this.#syncWaiters.filter((waiter) => waiter !== done);
        const last = this.#reflector.health.lastError;
        reject(
          new InformerError(
            'ERR_RUNTIME_NOT_SYNCED',
            this.resource,
            `informer for ${this.resource} did not sync${last ? `: ${last.message}` : ''}`,
            { cause: last ?? signal?.reason },
          ),
        );
      };
      const done = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#syncWaiters.push(done);
    });
  }

  /** health is a snapshot of what the informer is doing and how its last attempts went. */
  health(): InformerHealth {
    const health = this.#reflector.health;
    return {
      resource: this.resource,
      state: health.state,
      synced: this.#synced,
      ready: this.#synced && health.consecutiveFailures === 0 && health.state !== 'stopped',
      resourceVersion: this.#reflector.lastResourceVersion,
      lastEventAt: health.lastEventAt,
      lastListAt: health.lastListAt,
      watchRestarts: health.watchRestarts,
      relists: health.relists,
      failures: health.failures,
      consecutiveFailures: health.consecutiveFailures,
      lastError: health.lastError,
    };
  }

  /** replace is the reflector's whole list: the cache becomes `items`, handlers hear the differences. */
  replace(items: T[], _resourceVersion: string): void {
    const initial = !this.#synced;
    const listed = new Set<string>();
    for (const object of items) {
      const key = objectKey(object);
      listed.add(key);
      const old = this.#store.set(object);
      if (old === undefined) this.#handlers.added(object, initial);
      else if (old.metadata?.resourceVersion !== object.metadata?.resourceVersion) {
        this.#handlers.updated(old, object);
      }
    }
    if (this.#store.size > listed.size) {
      for (const key of this.#store.keys()) {
        if (listed.has(key)) continue;
        const old = this.#store.delete(key)!;
        this.#handlers.deleted(new DeletedFinalStateUnknown(key, old));
      }
    }
    if (initial) {
      this.#synced = true;
      this.#handlers.synced();
      const waiters = this.#syncWaiters;
      this.#syncWaiters = [];
      for (const waiter of waiters) waiter();
    }
  }

  /** apply is one change from the watch. */
  apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: T): void {
    if (type === 'DELETED') {
      this.#store.delete(objectKey(object));
      this.#handlers.deleted(object);
      return;
    }
    const old = this.#store.set(object);
    if (old === undefined) this.#handlers.added(object, false);
    else this.#handlers.updated(old, object);
  }
}
