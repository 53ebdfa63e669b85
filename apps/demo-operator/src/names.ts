import type { OwnerReference } from '@k/clientset';
import type { WebApp } from './generated/web-app-v1beta1.js';

/** FIELD_MANAGER is the server-side apply field manager of everything the operator writes. */
export const FIELD_MANAGER = 'demo-operator';

/** FINALIZER keeps a deleted WebApp until its registry entry (which no owner reference can cover) is removed. */
export const FINALIZER = 'apps.k.example/registry-entry';

/** MANAGED_BY_LABEL marks the Deployments and Services the operator made (its informers select on it). */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';

/** NAME_LABEL and INSTANCE_LABEL select a WebApp's Pods. */
export const NAME_LABEL = 'app.kubernetes.io/name';
export const INSTANCE_LABEL = 'app.kubernetes.io/instance';

/** CONFIG_HASH_ANNOTATION holds the hash of what the operator last applied, so a removed field is noticed. */
export const CONFIG_HASH_ANNOTATION = 'apps.k.example/config-hash';

/**
 * REGISTRY_PREFIX starts the names of the registry: one ConfigMap per namespace with WebApps, in
 * the operator's namespace, `webapp-registry-<namespace>`, listing the address of each of that
 * namespace's WebApps (so no namespace's WebApps can fill another's).
 */
export const REGISTRY_PREFIX = 'webapp-registry-';

/** REGISTRY_NAMESPACE_LABEL is on each registry ConfigMap: the namespace it lists (the informer selects on it). */
export const REGISTRY_NAMESPACE_LABEL = 'apps.k.example/registry-of';

/**
 * REGISTRY_MAX_BYTES bounds one namespace's registry ConfigMap: its keys and values together,
 * 512 KiB (the API server refuses more than 1 MiB of values, and etcd a request over 1.5 MiB,
 * managedFields included). That is at least 800 WebApps (names of 253 characters in a namespace
 * of 63), about 1,950 with names of 63 in a namespace of 63, and 8,700 with names of 12 in a
 * namespace of 10.
 */
export const REGISTRY_MAX_BYTES = 512 * 1024;

/** registryName is the registry ConfigMap of `namespace`'s WebApps. */
export function registryName(namespace: string): string {
  return `${REGISTRY_PREFIX}${namespace}`;
}

/** LEASE_NAME is the Lease the operator's replicas compete for. */
export const LEASE_NAME = 'demo-operator';

/** CONTAINER_NAME is the one container of a WebApp's Pods. */
export const CONTAINER_NAME = 'web';

/** SERVICE_PORT is the port of a WebApp's Service (the WebApp's `port` is the container's). */
export const SERVICE_PORT = 80;

/** DEFAULT_REPLICAS and DEFAULT_PORT are the CRD's defaults, for objects read before defaulting. */
export const DEFAULT_REPLICAS = 1;
export const DEFAULT_PORT = 8080;

/** selectorLabels select the Pods of `webapp`. */
export function selectorLabels(webapp: WebApp): Record<string, string> {
  return { [NAME_LABEL]: 'webapp', [INSTANCE_LABEL]: webapp.metadata?.name ?? '' };
}

/** selectorText is {@link selectorLabels} as a label selector string (the scale subresource's). */
export function selectorText(webapp: WebApp): string {
  return Object.entries(selectorLabels(webapp))
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

/** controllerReference makes `webapp` the controlling owner, so the garbage collector deletes what it owns. */
export function controllerReference(webapp: WebApp): OwnerReference {
  return {
    apiVersion: 'apps.k.example/v1beta1',
    kind: 'WebApp',
    name: webapp.metadata?.name ?? '',
    uid: webapp.metadata?.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** registryKey is the WebApp's key in the registry: `<namespace>.<name>` (a namespace has no dots). */
export function registryKey(webapp: WebApp): string {
  return `${webapp.metadata?.namespace ?? ''}.${webapp.metadata?.name ?? ''}`;
}

/** registryValue is what the registry says of a WebApp: the address of its Service. */
export function registryValue(webapp: WebApp): string {
  const { name = '', namespace = '' } = webapp.metadata ?? {};
  return `http://${name}.${namespace}.svc:${SERVICE_PORT}`;
}
