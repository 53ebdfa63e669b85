import type { KubernetesObject } from '@k/clientset';

/** Request names the object a reconcile is for (controller-runtime's `reconcile.Request`); `namespace` is `''` when cluster-scoped. */
export interface Request {
  readonly namespace: string;
  readonly name: string;
}

/** requestKey is the workqueue key of a request: `namespace/name`, or `name` when cluster-scoped. */
export function requestKey(request: Request): string {
  return request.namespace ? `${request.namespace}/${request.name}` : request.name;
}

/** requestFromKey turns a workqueue key back into a {@link Request}. */
export function requestFromKey(key: string): Request {
  const slash = key.indexOf('/');
  return slash === -1
    ? { namespace: '', name: key }
    : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** requestFor is the request for `object` itself. */
export function requestFor(object: KubernetesObject): Request {
  return { namespace: object.metadata?.namespace ?? '', name: object.metadata?.name ?? '' };
}

/**
 * controllerOwnerRequests maps an object to the request of its controlling owner when that owner
 * has `kind` in `group` (what `owns()` watches): `[]` for an object with no such owner.
 */
export function controllerOwnerRequests(
  object: KubernetesObject,
  owner: { group: string; kind: string },
): Request[] {
  for (const reference of object.metadata?.ownerReferences ?? []) {
    if (!reference.controller || reference.kind !== owner.kind) continue;
    const slash = reference.apiVersion.indexOf('/');
    const group = slash === -1 ? '' : reference.apiVersion.slice(0, slash);
    if (group !== owner.group) continue;
    return [{ namespace: object.metadata?.namespace ?? '', name: reference.name }];
  }
  return [];
}
