import type { KubernetesObject } from '@k/clientset';

/**
 * dropManagedFields is the informers' default transform: it deletes `metadata.managedFields`
 * (server-side apply bookkeeping, often 40 % or more of an object) from the freshly decoded
 * object before it is cached. Read managedFields with a GET, or pass `transform: false`.
 */
export function dropManagedFields<T extends KubernetesObject>(object: T): T {
  if (object.metadata?.managedFields !== undefined) delete object.metadata.managedFields;
  return object;
}
