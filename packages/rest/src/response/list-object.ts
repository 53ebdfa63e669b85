/** ListObject is the shape of any Kubernetes list (`PodList`, `ConfigMapList`, …). */
export interface ListObject<T> {
  apiVersion?: string;
  kind?: string;
  metadata?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: T[];
}
