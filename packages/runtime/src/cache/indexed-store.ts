import type { KubernetesObject } from '@k/clientset';
import { RuntimeError } from '../errors.js';
import { objectKey } from './object-key.js';

/** IndexFunction returns the index values of an object (e.g. its namespace, its owners' UIDs). */
export type IndexFunction<T> = (object: T) => readonly string[];

/** NAMESPACE_INDEX is the name of the index every store has: objects by namespace. */
export const NAMESPACE_INDEX = 'namespace';

/** namespaceIndex indexes an object by its namespace (client-go's `MetaNamespaceIndexFunc`). */
export function namespaceIndex(object: KubernetesObject): readonly string[] {
  const namespace = object.metadata?.namespace;
  return namespace ? [namespace] : [];
}

/** ownerUidIndex indexes an object by the UIDs of its owner references (for `owns` relations). */
export function ownerUidIndex(object: KubernetesObject): readonly string[] {
  return (object.metadata?.ownerReferences ?? []).map((owner) => owner.uid);
}

/**
 * Lister reads the cache: never a request, always what the informer saw last. Objects are shared
 * with the cache and with other readers: treat them as read-only (copy before changing one).
 */
export interface Lister<T> {
  /** get returns the object stored under `key` (`namespace/name`, or `name` when cluster-scoped). */
  get(key: string): T | undefined;
  /** getByName returns the object named `name` in `namespace` (none for a cluster-scoped object). */
  getByName(name: string, namespace?: string): T | undefined;
  /** list returns every object, or those of one namespace. */
  list(namespace?: string): T[];
  /** keys returns every key. */
  keys(): string[];
  /** byIndex returns the objects whose index `indexName` has `value`. */
  byIndex(indexName: string, value: string): T[];
  /** size is how many objects are stored. */
  readonly size: number;
}

/**
 * IndexedStore is an informer's cache (client-go's `threadSafeMap` with indexers): objects by
 * key plus, per index, the keys of the objects under each index value. Indexes are kept
 * up to date on every change; the namespace index is always there. Only its informer writes.
 */
export class IndexedStore<T extends KubernetesObject> implements Lister<T> {
  readonly #items = new Map<string, T>();
  readonly #indexers = new Map<string, IndexFunction<T>>();
  readonly #indices = new Map<string, Map<string, Set<string>>>();

  constructor(indexers: Readonly<Record<string, IndexFunction<T>>> = {}) {
    this.addIndexers({ [NAMESPACE_INDEX]: namespaceIndex, ...indexers });
  }

  get size(): number {
    return this.#items.size;
  }

  /** addIndexers adds indexes (also once objects are stored); a name in use is an error. */
  addIndexers(indexers: Readonly<Record<string, IndexFunction<T>>>): void {
    for (const [name, indexer] of Object.entries(indexers)) {
      if (this.#indexers.has(name)) {
        throw new RuntimeError('ERR_RUNTIME_CONFIGURATION', `index ${name} already exists`);
      }
      this.#indexers.set(name, indexer);
      const index = new Map<string, Set<string>>();
      this.#indices.set(name, index);
      for (const [key, object] of this.#items) this.#addToIndex(index, indexer(object), key);
    }
  }

  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  getByName(name: string, namespace?: string): T | undefined {
    return this.#items.get(namespace ? `${namespace}/${name}` : name);
  }

  list(namespace?: string): T[] {
    return namespace === undefined
      ? [...this.#items.values()]
      : this.byIndex(NAMESPACE_INDEX, namespace);
  }

  keys(): string[] {
    return [...this.#items.keys()];
  }

  byIndex(indexName: string, value: string): T[] {
    const index = this.#indices.get(indexName);
    if (!index)
      throw new RuntimeError('ERR_RUNTIME_CONFIGURATION', `index ${indexName} does not exist`);
    const objects: T[] = [];
    for (const key of index.get(value) ?? []) {
      const object = this.#items.get(key);
      if (object) objects.push(object);
    }
    return objects;
  }

  /** indexValues lists the values index `indexName` holds objects under. */
  indexValues(indexName: string): string[] {
    return [...(this.#indices.get(indexName)?.keys() ?? [])];
  }

  /** set stores `object` under its key, returning what it replaced. */
  set(object: T): T | undefined {
    const key = objectKey(object);
    const old = this.#items.get(key);
    this.#items.set(key, object);
    this.#updateIndices(key, old, object);
    return old;
  }

  /** delete removes the object under `key`, returning it. */
  delete(key: string): T | undefined {
    const old = this.#items.get(key);
    if (old === undefined) return undefined;
    this.#items.delete(key);
    this.#updateIndices(key, old, undefined);
    return old;
  }

  #updateIndices(key: string, old: T | undefined, next: T | undefined): void {
    for (const [name, indexer] of this.#indexers) {
      const index = this.#indices.get(name)!;
      const oldValues = old ? indexer(old) : [];
      const newValues = next ? indexer(next) : [];
      // The common case (namespace unchanged): nothing to move.
      if (oldValues.length === 1 && newValues.length === 1 && oldValues[0] === newValues[0])
        continue;
      for (const value of oldValues) {
        const keys = index.get(value);
        keys?.delete(key);
        if (keys?.size === 0) index.delete(value);
      }
      this.#addToIndex(index, newValues, key);
    }
  }

  #addToIndex(index: Map<string, Set<string>>, values: readonly string[], key: string): void {
    for (const value of values) {
      let keys = index.get(value);
      if (!keys) index.set(value, (keys = new Set()));
      keys.add(key);
    }
  }
}
