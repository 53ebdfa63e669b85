import type { KubernetesObject } from '@k/clientset';
import { systemClock, type Clock } from '@k/rest';
import { finalStateOf, objectKey } from '../cache/object-key.js';
import { RuntimeError } from '../errors.js';
import type { EventHandler } from '../informer/handler-set.js';

/**
 * WatchedCache is what {@link OwnWrites} reads: an informer — its cache, and its changes as they
 * are delivered. Any `Informer` of @k/runtime is one; so is anything with a `lister.get(key)`
 * and an `addEventHandler`.
 */
export interface WatchedCache<T> {
  readonly lister: { get(key: string): T | undefined };
  addEventHandler(handler: EventHandler<T>): unknown;
}

/** ObjectIdentity names an object: its namespace (none for a cluster-scoped one) and name. */
export interface ObjectIdentity {
  readonly metadata?:
    { readonly namespace?: string | undefined; readonly name?: string | undefined } | undefined;
}

/** OwnWritesOptions configure an {@link OwnWrites}. */
export interface OwnWritesOptions {
  /**
   * ttlMs is how long a write is kept at most when the informer never delivers it (default
   * 30 s): a delete delivered before the write's answer, say, or a watch that missed it and
   * relisted without it.
   */
  ttlMs?: number | undefined;
  /** clock gives the time (default: the monotonic system clock). */
  clock?: Pick<Clock, 'now'> | undefined;
}

/**
 * versionOf is the object's resourceVersion as the integer an etcd-backed API server issues
 * (at most 20 digits: etcd's revisions are int64), if it is one.
 */
export function versionOf(object: KubernetesObject | undefined): bigint | undefined {
  const text = object?.metadata?.resourceVersion;
  return text !== undefined && /^\d{1,20}$/.test(text) ? BigInt(text) : undefined;
}

interface Written<T> {
  readonly object: T;
  readonly version: bigint;
  readonly expires: number;
}

/**
 * OwnWrites is an informer's cache that also knows the writes you made and it has not delivered
 * yet (read-your-own-writes, as client-go's `MutationCache` and java-operator-sdk's cache of
 * the controller's own updates): after a write, `remember` the server's answer; `get` returns
 * whichever copy is newer. A reconcile that runs again right after writing (its own write, or
 * another change, enqueued it) then sees what it wrote, and does not send it twice nor decide
 * on a stale copy.
 *
 * resourceVersions are compared as integers, as client-go's cache does: every etcd-backed API
 * server issues them so (the API's contract calls them opaque; where one is not an integer the
 * write is not kept and the cache answers). A write is dropped once the informer delivers that
 * version or a later one, or the object's delete (a write older than a delete already seen is
 * not kept), and at the latest after `ttlMs`. Keyed like the cache: `namespace/name`, `name`
 * alone for a cluster-scoped object — `get(object)` builds the key. One per informer, for its
 * lifetime (it adds an event handler to it).
 */
export class OwnWrites<T extends KubernetesObject> {
  readonly #lister: WatchedCache<T>['lister'];
  /** Writes by key, in the order they expire (a key written again moves to the end). */
  readonly #written = new Map<string, Written<T>>();
  /** The versions of deletes delivered lately, by key, in the order they expire. */
  readonly #deleted = new Map<string, { version: bigint; expires: number }>();
  readonly #ttlMs: number;
  readonly #clock: Pick<Clock, 'now'>;

  constructor(informer: WatchedCache<T>, options: OwnWritesOptions = {}) {
    const ttlMs = options.ttlMs ?? 30_000;
    if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs < 0) {
      throw new RuntimeError(
        'ERR_RUNTIME_INVALID_ARGUMENT',
        `ownwrites ttlMs must be a finite number of milliseconds, at least 0 (got ${String(ttlMs)})`,
      );
    }
    this.#lister = informer.lister;
    this.#ttlMs = ttlMs;
    this.#clock = options.clock ?? systemClock;
    informer.addEventHandler({
      onAdd: (object) => this.#delivered(object),
      onUpdate: (_old, object) => this.#delivered(object),
      onDelete: (deleted) => this.#deletedOnServer(finalStateOf(deleted)),
    });
  }

  /**
   * remember keeps `object`, as a write returned it, until the informer has that version (or a
   * later one). An answer older than what is known already (the cache, an earlier answer, a
   * delete) is not kept, so answers may come in any order.
   */
  remember(object: T): void {
    const version = versionOf(object);
    if (version === undefined) return;
    const now = this.#clock.now();
    this.#expire(now);
    const key = objectKey(object);
    const newest = this.#written.get(key)?.version ?? versionOf(this.#lister.get(key));
    const deleted = this.#deleted.get(key)?.version;
    if (
      (newest !== undefined && version <= newest) ||
      (deleted !== undefined && version <= deleted)
    ) {
      return;
    }
    this.#written.delete(key);
    this.#written.set(key, { object, version, expires: now + this.#ttlMs });
  }

  /**
   * get is the newest copy of an object: the cache's, or your own write when that is newer.
   * Name the object by its key (`namespace/name`, `name` when cluster-scoped) or give an object
   * with its `metadata.namespace` and `metadata.name` (an apply configuration, a reference).
   */
  get(keyOrObject: string | ObjectIdentity): T | undefined {
    const key = typeof keyOrObject === 'string' ? keyOrObject : objectKey(keyOrObject);
    const cached = this.#lister.get(key);
    const written = this.#written.get(key);
    if (written === undefined) return cached;
    const cachedVersion = versionOf(cached);
    if (
      written.expires <= this.#clock.now() ||
      (cachedVersion !== undefined && cachedVersion >= written.version)
    ) {
      this.#written.delete(key);
      return cached;
    }
    return written.object;
  }

  /** pending counts the writes the informer has not delivered yet. */
  get pending(): number {
    this.#expire(this.#clock.now());
    return this.#written.size;
  }

  #delivered(object: T): void {
    const key = objectKey(object);
    const written = this.#written.get(key);
    const version = versionOf(object);
    if (written && version !== undefined && version >= written.version) this.#written.delete(key);
  }

  #deletedOnServer(object: T): void {
    const key = objectKey(object);
    this.#written.delete(key);
    const version = versionOf(object);
    if (version === undefined) return;
    const now = this.#clock.now();
    this.#expire(now);
    this.#deleted.delete(key);
    this.#deleted.set(key, { version, expires: now + this.#ttlMs });
  }

  /** expire drops what has lived its time: from the front of each map, which expires first. */
  #expire(now: number): void {
    for (const entries of [this.#written, this.#deleted]) {
      for (const [key, entry] of entries) {
        if (entry.expires > now) break;
        entries.delete(key);
      }
    }
  }
}
