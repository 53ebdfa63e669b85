import type { KubernetesObject, OwnerReference } from '@k/clientset';

/** controllerOf is the owner reference of `object` marked `controller: true`, if any. */
export function controllerOf(object: KubernetesObject): OwnerReference | undefined {
  return object.metadata?.ownerReferences?.find((reference) => reference.controller === true);
}

/**
 * isControlledBy is true when `owner` is the controlling owner of `object`, by UID
 * (apimachinery's `metav1.IsControlledBy`): an object with no controller, or another one, is not
 * yours to change — and an owner deleted and created again under its name is another owner.
 */
export function isControlledBy(object: KubernetesObject, owner: KubernetesObject): boolean {
  const uid = owner.metadata?.uid;
  return uid !== undefined && uid !== '' && controllerOf(object)?.uid === uid;
}
