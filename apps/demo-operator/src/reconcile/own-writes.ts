import type { KubernetesObject } from '@k/clientset';
import { finalStateOf, objectKey, type EventHandler, type Lister } from '@k/runtime';

/** WatchedCache is what {@link OwnWrites} reads: an informer (its cache, and its changes as they are delivered). */
export interface WatchedCache<T> {
  readonly lister: Pick<Lister<T>, 'get'>;
  addEventHandler(handler: EventHandler<T>): unknown;
}

/** versionOf is the object's resourceVersion as the integer an etcd-backed API server issues, if it is one. */
function versionOf(object: KubernetesObject | undefined): bigint | undefined {
  const text = object?.metadata?.resourceVersion;
  return text !== undefined && /^\d+$/.test(text) ? BigInt(text) : undefined;
}

/**
 * OwnWrites is an informer's cache that also knows the operator's own writes it has not
 * delivered yet (client-go's integer-resourceVersion mutation cache): after a write, `remember`
 * the server's answer; `get` returns whichever copy is newer. A reconcile that runs again right
 * after writing (its own write, or someone else's change, enqueued it) then sees what it wrote
 * and does not send it twice. The copy is dropped once the informer delivers that version or a
 * later one, or the object's delete, and at the latest after `ttlMs` (default 30 s: a delete
 * delivered before the write's answer leaves nothing to drop it). resourceVersions are compared
 * as integers, as client-go's cache does: every etcd-backed API server issues them so; when one
 * is not an integer the cache wins.
 */
export class OwnWrites<T extends KubernetesObject> {
  readonly #lister: Pick<Lister<T>, 'get'>;
  readonly #written = new Map<string, { object: T; version: bigint; expires: number }>();
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(informer: WatchedCache<T>, options: { ttlMs?: number; now?: () => number } = {}) {
    this.#lister = informer.lister;
    this.#ttlMs = options.ttlMs ?? 30_000;
    this.#now = options.now ?? Date.now;
    informer.addEventHandler({
      onAdd: (object) => this.#delivered(object),
      onUpdate: (_old, object) => this.#delivered(object),
      onDelete: (deleted) => this.#written.delete(objectKey(finalStateOf(deleted))),
    });
  }

  /** remember keeps `object`, as a write returned it, until the informer has it (or a later version). */
  remember(object: T): void {
    const version = versionOf(object);
    if (version === undefined) return;
    const now = this.#now();
    for (const [key, written] of this.#written) {
      if (written.expires <= now) this.#written.delete(key);
    }
    const key = objectKey(object);
    const newest = this.#written.get(key)?.version ?? versionOf(this.#lister.get(key));
    if (newest === undefined || version > newest) {
      this.#written.set(key, { object, version, expires: now + this.#ttlMs });
    }
  }

  /** get is the newest copy of the object `key` (`namespace/name`): the cache's, or the operator's own write. */
  get(key: string): T | undefined {
    const written = this.#written.get(key);
    const cached = this.#lister.get(key);
    if (!written) return cached;
    const cachedVersion = versionOf(cached);
    if (
      (cachedVersion !== undefined && cachedVersion >= written.version) ||
      written.expires <= this.#now()
    ) {
      this.#written.delete(key);
      return cached;
    }
    return written.object;
  }

  /** pending counts the writes the informer has not delivered yet (for tests). */
  get pending(): number {
    return this.#written.size;
  }

  #delivered(object: T): void {
    const key = objectKey(object);
    const written = this.#written.get(key);
    const version = versionOf(object);
    if (written && version !== undefined && version >= written.version) this.#written.delete(key);
  }
}
