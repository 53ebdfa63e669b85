import type { ResourceDescriptor } from '../resource/resource-descriptor.js';

/**
 * The discovery documents as the API server sends them: aggregated discovery
 * (`apidiscovery.k8s.io/v2` `APIGroupDiscoveryList`) and the legacy `APIVersions`, `APIGroupList`
 * and `APIResourceList`. Only the fields the client reads are declared.
 */

interface DiscoveryKind {
  group?: string | undefined;
  version?: string | undefined;
  kind?: string | undefined;
}

/** AggregatedDiscoveryList is the aggregated discovery answer of `/api` or `/apis`. */
export interface AggregatedDiscoveryList {
  kind: 'APIGroupDiscoveryList';
  items?:
    | {
        metadata?: { name?: string | undefined } | undefined;
        versions?:
          | {
              version: string;
              freshness?: string | undefined;
              resources?:
                | {
                    resource: string;
                    responseKind?: DiscoveryKind | undefined;
                    scope?: string | undefined;
                    singularResource?: string | undefined;
                    verbs?: string[] | undefined;
                    shortNames?: string[] | undefined;
                    categories?: string[] | undefined;
                    subresources?:
                      { subresource: string; verbs?: string[] | undefined }[] | undefined;
                  }[]
                | undefined;
            }[]
          | undefined;
      }[]
    | undefined;
}

/** APIVersions is the legacy answer of `/api`. */
export interface APIVersions {
  kind?: 'APIVersions' | undefined;
  versions: string[];
}

/** APIGroupList is the legacy answer of `/apis`. */
export interface APIGroupList {
  kind?: 'APIGroupList' | undefined;
  groups: {
    name: string;
    versions: { groupVersion: string; version: string }[];
    preferredVersion?: { groupVersion: string; version: string } | undefined;
  }[];
}

/** APIResourceList is the legacy answer of `/api/v1` or `/apis/<group>/<version>`. */
export interface APIResourceList {
  kind?: 'APIResourceList' | undefined;
  groupVersion: string;
  resources: {
    /** name is the plural, or `<plural>/<subresource>`. */
    name: string;
    singularName?: string | undefined;
    namespaced: boolean;
    group?: string | undefined;
    version?: string | undefined;
    kind: string;
    verbs: string[];
    shortNames?: string[] | undefined;
    categories?: string[] | undefined;
  }[];
}

/** DiscoveredGroup is an API group with its versions, the preferred one first. */
export interface DiscoveredGroup {
  /** name is `''` for the core group. */
  name: string;
  versions: string[];
  preferredVersion: string;
}

/**
 * ServerResources is everything discovery says about a server: its groups (preferred versions)
 * and every resource of every served group version. It is plain JSON (the disk cache stores it).
 */
export interface ServerResources {
  groups: DiscoveredGroup[];
  resources: ResourceDescriptor[];
  /** aggregated is true when the server answered with aggregated discovery. */
  aggregated: boolean;
  /** failedGroupVersions lists the group versions whose legacy discovery failed (e.g. an unavailable aggregated API). */
  failedGroupVersions: string[];
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isOptional(value: unknown, test: (value: unknown) => boolean): boolean {
  return value === undefined || test(value);
}

function isDiscoveredGroup(value: unknown): value is DiscoveredGroup {
  return (
    isRecord(value) &&
    typeof value.name === 'string' &&
    isStringList(value.versions) &&
    typeof value.preferredVersion === 'string'
  );
}

function isResourceDescriptor(value: unknown): value is ResourceDescriptor {
  return (
    isRecord(value) &&
    typeof value.group === 'string' &&
    typeof value.version === 'string' &&
    typeof value.kind === 'string' &&
    typeof value.plural === 'string' &&
    typeof value.namespaced === 'boolean' &&
    isOptional(value.singular, (singular) => typeof singular === 'string') &&
    isOptional(value.verbs, isStringList) &&
    isOptional(
      value.subresources,
      (subresources) => isRecord(subresources) && Object.values(subresources).every(isStringList),
    ) &&
    isOptional(value.shortNames, isStringList) &&
    isOptional(value.categories, isStringList)
  );
}

/**
 * isServerResources reports whether `value` has the shape of {@link ServerResources} all the way
 * down (every group and resource with the fields of its type), so that what a cache file holds
 * is trusted only when the discovery client can use it without a TypeError.
 */
export function isServerResources(value: unknown): value is ServerResources {
  return (
    isRecord(value) &&
    Array.isArray(value.groups) &&
    value.groups.every(isDiscoveredGroup) &&
    Array.isArray(value.resources) &&
    value.resources.every(isResourceDescriptor) &&
    typeof value.aggregated === 'boolean' &&
    isStringList(value.failedGroupVersions)
  );
}

function sortedCopy(values: readonly string[] | undefined): string[] {
  return [...(values ?? [])].sort();
}

/**
 * fromAggregated reads aggregated discovery lists (core and named groups) into
 * {@link ServerResources}. The server lists each group's versions preferred first.
 */
export function fromAggregated(lists: readonly AggregatedDiscoveryList[]): ServerResources {
  const groups: DiscoveredGroup[] = [];
  const resources: ResourceDescriptor[] = [];
  for (const list of lists) {
    for (const item of list.items ?? []) {
      const name = item.metadata?.name ?? '';
      const versions = (item.versions ?? []).map((version) => version.version);
      if (versions.length === 0) continue;
      groups.push({ name, versions, preferredVersion: versions[0] as string });
      for (const version of item.versions ?? []) {
        for (const resource of version.resources ?? []) {
          const subresources: Record<string, readonly string[]> = {};
          for (const sub of resource.subresources ?? []) {
            subresources[sub.subresource] = sortedCopy(sub.verbs);
          }
          resources.push({
            group: name,
            version: version.version,
            kind: resource.responseKind?.kind ?? '',
            plural: resource.resource,
            ...(resource.singularResource ? { singular: resource.singularResource } : {}),
            namespaced: resource.scope === 'Namespaced',
            verbs: sortedCopy(resource.verbs),
            subresources,
            ...(resource.shortNames?.length ? { shortNames: resource.shortNames } : {}),
            ...(resource.categories?.length ? { categories: resource.categories } : {}),
          });
        }
      }
    }
  }
  return { groups, resources, aggregated: true, failedGroupVersions: [] };
}

/**
 * fromResourceList reads a legacy `APIResourceList` of `group`/`version` into descriptors,
 * attaching `<plural>/<subresource>` entries to their resource.
 */
export function fromResourceList(
  group: string,
  version: string,
  list: APIResourceList,
): ResourceDescriptor[] {
  const byPlural = new Map<
    string,
    { descriptor: ResourceDescriptor; subresources: Record<string, readonly string[]> }
  >();
  for (const resource of list.resources) {
    if (resource.name.includes('/')) continue;
    const subresources: Record<string, readonly string[]> = {};
    byPlural.set(resource.name, {
      subresources,
      descriptor: {
        group,
        version,
        kind: resource.kind,
        plural: resource.name,
        ...(resource.singularName ? { singular: resource.singularName } : {}),
        namespaced: resource.namespaced,
        verbs: sortedCopy(resource.verbs),
        subresources,
        ...(resource.shortNames?.length ? { shortNames: resource.shortNames } : {}),
        ...(resource.categories?.length ? { categories: resource.categories } : {}),
      },
    });
  }
  for (const resource of list.resources) {
    const slash = resource.name.indexOf('/');
    if (slash === -1) continue;
    const parent = byPlural.get(resource.name.slice(0, slash));
    if (parent) parent.subresources[resource.name.slice(slash + 1)] = sortedCopy(resource.verbs);
  }
  return [...byPlural.values()].map((entry) => entry.descriptor);
}
