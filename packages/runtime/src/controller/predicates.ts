import type { KubernetesObject } from '@k/clientset';

/**
 * Predicate filters the changes a controller enqueues (controller-runtime's `predicate.Funcs`):
 * each method says whether that kind of change is worth a reconcile; a missing one means yes.
 */
export interface Predicate<T extends KubernetesObject = KubernetesObject> {
  create?(object: T): boolean;
  update?(oldObject: T, newObject: T): boolean;
  delete?(object: T): boolean;
}

/** generationChanged passes updates that change `metadata.generation` (spec changes, not status). */
export const generationChanged: Predicate = {
  update: (oldObject, newObject) =>
    oldObject.metadata?.generation !== newObject.metadata?.generation,
};

function sameRecord(
  a: Readonly<Record<string, string>> | undefined,
  b: Readonly<Record<string, string>> | undefined,
): boolean {
  const left = Object.entries(a ?? {});
  if (left.length !== Object.keys(b ?? {}).length) return false;
  return left.every(([key, value]) => b?.[key] === value);
}

/** labelsChanged passes updates that change `metadata.labels`. */
export const labelsChanged: Predicate = {
  update: (oldObject, newObject) =>
    !sameRecord(oldObject.metadata?.labels, newObject.metadata?.labels),
};

/** annotationsChanged passes updates that change `metadata.annotations`. */
export const annotationsChanged: Predicate = {
  update: (oldObject, newObject) =>
    !sameRecord(oldObject.metadata?.annotations, newObject.metadata?.annotations),
};

/** resourceVersionChanged drops resyncs (updates that change nothing). */
export const resourceVersionChanged: Predicate = {
  update: (oldObject, newObject) =>
    oldObject.metadata?.resourceVersion !== newObject.metadata?.resourceVersion,
};

/** anyOf passes a change when one of `predicates` does (all of them are checked by default). */
export function anyOf<T extends KubernetesObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return {
    create: (object) => predicates.some((predicate) => predicate.create?.(object) ?? true),
    update: (oldObject, newObject) =>
      predicates.some((predicate) => predicate.update?.(oldObject, newObject) ?? true),
    delete: (object) => predicates.some((predicate) => predicate.delete?.(object) ?? true),
  };
}
