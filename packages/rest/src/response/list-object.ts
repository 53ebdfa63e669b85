/** ListObject is the shape of any Kubernetes list (`PodList`, `ConfigMapList`, …). */
export interface ListObject<T> {
  apiVersion?: string | undefined;
  kind?: string | undefined;
  metadata?:
    | {
        resourceVersion?: string | undefined;
        continue?: string | undefined;
        remainingItemCount?: number | undefined;
      }
    | undefined;
  items: T[];
}
