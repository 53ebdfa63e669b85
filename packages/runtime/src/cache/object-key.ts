import type { KubernetesObject } from '@k/clientset';

/**
 * objectKey is client-go's `MetaNamespaceKeyFunc`: `namespace/name` for a namespaced object,
 * `name` for a cluster-scoped one. The key of a store, a workqueue item and a tombstone.
 */
export function objectKey(object: KubernetesObject): string {
  const metadata = object.metadata;
  const name = metadata?.name ?? '';
  return metadata?.namespace ? `${metadata.namespace}/${name}` : name;
}

/**
 * DeletedFinalStateUnknown is what `onDelete` gets for an object deleted while the informer was
 * not watching: it was missing from a relist. `object` is its last state in the cache, which
 * may be stale (client-go's tombstone).
 */
export class DeletedFinalStateUnknown<T> {
  readonly key: string;
  readonly object: T;

  constructor(key: string, object: T) {
    this.key = key;
    this.object = object;
  }
}

/** finalStateOf unwraps a tombstone: the object itself, or its last known state. */
export function finalStateOf<T>(deleted: T | DeletedFinalStateUnknown<T>): T {
  return deleted instanceof DeletedFinalStateUnknown ? deleted.object : deleted;
}
