import type { KubernetesObject } from '@k/clientset';

/**
 * ReconcileRequest names the object a reconcile is for (controller-runtime's `reconcile.Request`):
 * what `watches()` maps changes to. `namespace` is `''` for a cluster-scoped object.
 */
export interface ReconcileRequest {
  readonly namespace: string;
  readonly name: string;
}

/** requestKey is the workqueue key of a request: `namespace/name`, or `name` when cluster-scoped. */
export function requestKey(request: ReconcileRequest): string {
  return request.namespace ? `${request.namespace}/${request.name}` : request.name;
}

/** requestFromKey turns a workqueue key back into a {@link ReconcileRequest}. */
export function requestFromKey(key: string): ReconcileRequest {
  const slash = key.indexOf('/');
  return slash === -1
    ? { namespace: '', name: key }
    : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** requestFor is the request for `object` itself. */
export function requestFor(object: KubernetesObject): ReconcileRequest {
  return { namespace: object.metadata?.namespace ?? '', name: object.metadata?.name ?? '' };
}

/** OwnerKind is the kind `owns()` maps owned objects to, with its scope. */
export interface OwnerKind {
  group: string;
  kind: string;
  /** namespaced is false for a cluster-scoped owner, whose request has no namespace. */
  namespaced: boolean;
}

/**
 * controllerOwnerRequests maps an object to the request of its controlling owner when that owner
 * has `kind` in `group` (what `owns()` watches): `[]` for an object with no such owner. A
 * namespaced owner is in its child's namespace (owner references never cross namespaces); a
 * cluster-scoped one has none, so both ways of enqueueing it give one key.
 */
export function controllerOwnerRequests(
  object: KubernetesObject,
  owner: OwnerKind,
): ReconcileRequest[] {
  for (const reference of object.metadata?.ownerReferences ?? []) {
    if (!reference.controller || reference.kind !== owner.kind) continue;
    const slash = reference.apiVersion.indexOf('/');
    const group = slash === -1 ? '' : reference.apiVersion.slice(0, slash);
    if (group !== owner.group) continue;
    const namespace = owner.namespaced ? (object.metadata?.namespace ?? '') : '';
    return [{ namespace, name: reference.name }];
  }
  return [];
}
