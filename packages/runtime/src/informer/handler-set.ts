import type { KubernetesObject } from '@k/clientset';
import type { Lister } from '../cache/indexed-store.js';
import type { DeletedFinalStateUnknown } from '../cache/object-key.js';
import type { Logger } from '../logger.js';

/**
 * EventHandler hears an informer's changes (client-go's `ResourceEventHandler`). Every method is
 * optional. Objects are the cache's own: read them, do not change them.
 */
export interface EventHandler<T> {
  /** onAdd: a new object; `isInInitialList` is true for objects of the first list (and the replay to a late handler). */
  onAdd?(object: T, isInInitialList: boolean): void;
  /** onUpdate: a changed object — or, on resync, the same object twice. */
  onUpdate?(oldObject: T, newObject: T): void;
  /** onDelete: the deleted object, or a tombstone when the delete was missed while disconnected. */
  onDelete?(object: T | DeletedFinalStateUnknown<T>): void;
}

/** HandlerRegistration is an added handler: `remove()` it; `hasSynced` once it received the initial list. */
export interface HandlerRegistration {
  remove(): void;
  readonly hasSynced: boolean;
}

const MINIMUM_RESYNC_PERIOD_MS = 1000;

interface Entry<T> {
  handler: EventHandler<T>;
  resyncPeriodMs: number;
  timer: ReturnType<typeof setInterval> | undefined;
  synced: boolean;
}

/** HandlerSet delivers an informer's changes to its handlers, one handler's failure never stopping the others. */
export class HandlerSet<T extends KubernetesObject> {
  readonly #entries = new Set<Entry<T>>();
  readonly #lister: Lister<T>;
  readonly #logger: Logger;
  readonly #resource: string;
  #resyncing = false;

  constructor(lister: Lister<T>, logger: Logger, resource: string) {
    this.#lister = lister;
    this.#logger = logger;
    this.#resource = resource;
  }

  add(
    handler: EventHandler<T>,
    resyncPeriodMs: number,
    informerSynced: boolean,
  ): HandlerRegistration {
    const entry: Entry<T> = {
      handler,
      resyncPeriodMs: resyncPeriodMs > 0 ? Math.max(MINIMUM_RESYNC_PERIOD_MS, resyncPeriodMs) : 0,
      timer: undefined,
      synced: informerSynced,
    };
    this.#entries.add(entry);
    if (informerSynced) {
      for (const object of this.#lister.list())
        this.#call('onAdd', () => handler.onAdd?.(object, true));
    }
    if (this.#resyncing) this.#startResync(entry);
    return {
      remove: () => {
        this.#stopResync(entry);
        this.#entries.delete(entry);
      },
      get hasSynced() {
        return entry.synced;
      },
    };
  }

  synced(): void {
    for (const entry of this.#entries) entry.synced = true;
  }

  added(object: T, isInInitialList: boolean): void {
    for (const entry of this.#entries) {
      this.#call('onAdd', () => entry.handler.onAdd?.(object, isInInitialList));
    }
  }

  updated(oldObject: T, newObject: T): void {
    for (const entry of this.#entries) {
      this.#call('onUpdate', () => entry.handler.onUpdate?.(oldObject, newObject));
    }
  }

  deleted(object: T | DeletedFinalStateUnknown<T>): void {
    for (const entry of this.#entries) {
      this.#call('onDelete', () => entry.handler.onDelete?.(object));
    }
  }

  #call(method: string, run: () => void): void {
    try {
      run();
    } catch (error) {
      this.#logger.error('informer event handler threw', {
        resource: this.#resource,
        method,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  startResync(): void {
    this.#resyncing = true;
    for (const entry of this.#entries) this.#startResync(entry);
  }

  stopResync(): void {
    this.#resyncing = false;
    for (const entry of this.#entries) this.#stopResync(entry);
  }

  #startResync(entry: Entry<T>): void {
    if (entry.resyncPeriodMs === 0 || entry.timer) return;
    // Housekeeping: the informer's watch is what keeps the process alive, not its resync.
    entry.timer = setInterval(() => {
      if (!entry.synced) return;
      for (const object of this.#lister.list()) {
        this.#call('onUpdate', () => entry.handler.onUpdate?.(object, object));
      }
    }, entry.resyncPeriodMs);
    entry.timer.unref();
  }

  #stopResync(entry: Entry<T>): void {
    if (entry.timer) clearInterval(entry.timer);
    entry.timer = undefined;
  }
}
