/** ResourceVerb is a verb discovery lists for a resource or subresource. */
export type ResourceVerb =
  'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/**
 * ResourceDescriptor describes one API resource as discovery lists it: where it lives (group,
 * version, plural), what it holds (kind), whether it is namespaced, the verbs it serves and its
 * subresources with their verbs. Generated clients carry one per resource (`deploymentsResource`);
 * the discovery client builds them for any resource, CRDs included. `verbs` and `subresources`
 * are checked before a request is sent; leave them out (dynamic use) to allow every verb.
 */
export interface ResourceDescriptor {
  /** group is `''` for the core group. */
  readonly group: string;
  readonly version: string;
  /** kind is the object kind, e.g. `Deployment` (`''` when unknown, for a dynamic resource). */
  readonly kind: string;
  /** plural is the resource name in URLs, e.g. `deployments`. */
  readonly plural: string;
  readonly singular?: string | undefined;
  readonly namespaced: boolean;
  readonly verbs?: readonly string[] | undefined;
  /** subresources maps `status`, `scale`, `log`, … to their verbs. */
  readonly subresources?: Readonly<Record<string, readonly string[]>> | undefined;
  readonly shortNames?: readonly string[] | undefined;
  readonly categories?: readonly string[] | undefined;
}

/** GroupVersionResource names a resource without knowing its kind, e.g. `{ group: 'apps', version: 'v1', resource: 'deployments' }`. */
export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/** GroupVersionKind names a kind, e.g. `{ group: 'apps', version: 'v1', kind: 'Deployment' }`. */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** apiVersionOf returns a descriptor's `apiVersion`: `v1` for core, else `<group>/<version>`. */
export function apiVersionOf(resource: {
  readonly group: string;
  readonly version: string;
}): string {
  return resource.group === '' ? resource.version : `${resource.group}/${resource.version}`;
}

/**
 * parseApiVersion splits an `apiVersion` into group and version: `v1` → core, `apps/v1` → apps.
 * Returns undefined for anything else (empty, more than one slash).
 */
export function parseApiVersion(
  apiVersion: string,
): { group: string; version: string } | undefined {
  const parts = apiVersion.split('/');
  if (parts.length === 1 && parts[0]) return { group: '', version: parts[0] };
  if (parts.length === 2 && parts[0] && parts[1]) return { group: parts[0], version: parts[1] };
  return undefined;
}

/** resourceName is `<plural>[.<group>]`, the way kubectl and error messages name a resource. */
export function resourceName(resource: Pick<ResourceDescriptor, 'group' | 'plural'>): string {
  return resource.group === '' ? resource.plural : `${resource.plural}.${resource.group}`;
}
