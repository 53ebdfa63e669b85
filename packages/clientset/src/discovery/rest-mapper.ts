import { ClientsetError } from '../errors.js';
import {
  parseApiVersion,
  type GroupVersionKind,
  type ResourceDescriptor,
} from '../resource/resource-descriptor.js';
import { NON_EMPTY_STRING, STRING, withMethods } from '../validation/argument-rules.js';
import { checkArgument, checkOptions, type OptionRules } from '../validation/check-arguments.js';
import type { DiscoveryClient } from './discovery-client.js';
import type { ServerResources } from './discovery-documents.js';

/** KindQuery names a kind; without `version`, the group's preferred version is used. */
export interface KindQuery {
  group: string;
  version?: string | undefined;
  kind: string;
}

const DISCOVERY_CLIENT = withMethods(
  'a DiscoveryClient',
  'serverResources',
  'refresh',
  'invalidate',
);

const KIND_QUERY: OptionRules = {
  rules: { group: STRING, version: NON_EMPTY_STRING, kind: NON_EMPTY_STRING },
  required: ['group', 'kind'],
};

function preferredFirst(resources: ServerResources, group: string): string[] {
  const entry = resources.groups.find((candidate) => candidate.name === group);
  return entry
    ? [entry.preferredVersion, ...entry.versions.filter((v) => v !== entry.preferredVersion)]
    : [];
}

/**
 * findByKind finds the resource of a kind in discovered resources: in `version` when given, else
 * in the group's preferred version, then its other versions. Subresource kinds (Scale) never match.
 */
export function findByKind(
  resources: ServerResources,
  query: KindQuery,
): ResourceDescriptor | undefined {
  const versions =
    query.version !== undefined ? [query.version] : preferredFirst(resources, query.group);
  for (const version of versions) {
    const found = resources.resources.find(
      (resource) =>
        resource.group === query.group &&
        resource.version === version &&
        resource.kind === query.kind,
    );
    if (found) return found;
  }
  return undefined;
}

/**
 * findByName resolves a resource the way kubectl arguments name one: `deployments`, `deployment`,
 * `deploy` (short name), `Deployment` (kind), optionally qualified by group (`deployments.apps`)
 * or version and group (`deployments.v1.apps`). The preferred version of the first matching group
 * wins, core first, then groups in discovery order.
 */
export function findByName(
  resources: ServerResources,
  text: string,
): ResourceDescriptor | undefined {
  const [name = '', ...rest] = text.split('.');
  const qualifier = rest.join('.');
  const lowered = name.toLowerCase();
  const matches = (resource: ResourceDescriptor) =>
    resource.plural === lowered ||
    resource.singular === lowered ||
    resource.kind.toLowerCase() === lowered ||
    (resource.shortNames ?? []).includes(lowered);
  const candidates: { group: string; version?: string }[] = [];
  if (qualifier === '') {
    for (const group of resources.groups) candidates.push({ group: group.name });
  } else {
    candidates.push({ group: qualifier });
    const dot = qualifier.indexOf('.');
    const version = dot === -1 ? qualifier : qualifier.slice(0, dot);
    const group = dot === -1 ? '' : qualifier.slice(dot + 1);
    if (/^v\d/.test(version)) candidates.push({ group, version });
  }
  for (const candidate of candidates) {
    const versions =
      candidate.version !== undefined
        ? [candidate.version]
        : preferredFirst(resources, candidate.group);
    for (const version of versions) {
      const found = resources.resources.find(
        (resource) =>
          resource.group === candidate.group && resource.version === version && matches(resource),
      );
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * RestMapper maps kinds to resources and back from discovery (client-go's deferred discovery
 * REST mapper): a miss invalidates the discovery cache and looks again once, so a CRD installed
 * after the first lookup is found; a second miss fails with `ERR_CLIENTSET_NO_MAPPING`.
 */
export class RestMapper {
  readonly discovery: DiscoveryClient;

  constructor(discovery: DiscoveryClient) {
    checkArgument(discovery, DISCOVERY_CLIENT, 'discovery', { where: 'RestMapper' });
    this.discovery = discovery;
  }

  async #lookup<T>(
    find: (resources: ServerResources) => T | undefined,
    miss: () => string,
  ): Promise<T> {
    const found = find(await this.discovery.serverResources());
    if (found !== undefined) return found;
    await this.discovery.invalidate();
    const again = find(await this.discovery.refresh());
    if (again !== undefined) return again;
    throw new ClientsetError('ERR_CLIENTSET_NO_MAPPING', miss());
  }

  /** resourceFor returns the resource of a kind (preferred version when `version` is left out). */
  async resourceFor(query: KindQuery): Promise<ResourceDescriptor> {
    checkOptions(query, KIND_QUERY, { where: 'mapper resourceFor' }, 'query');
    return this.#lookup(
      (resources) => findByKind(resources, query),
      () =>
        `no matches for kind "${query.kind}" in ${
          query.version === undefined
            ? `group "${query.group}"`
            : `version "${query.group === '' ? '' : `${query.group}/`}${query.version}"`
        }`,
    );
  }

  /** mappingFor returns the resource of an object's `apiVersion` and `kind`. */
  async mappingFor(apiVersion: string, kind: string): Promise<ResourceDescriptor> {
    checkArgument(apiVersion, NON_EMPTY_STRING, 'apiVersion', { where: 'mapper mappingFor' });
    checkArgument(kind, NON_EMPTY_STRING, 'kind', { where: 'mapper mappingFor' });
    const parsed = parseApiVersion(apiVersion);
    if (!parsed)
      throw new ClientsetError('ERR_CLIENTSET_NO_MAPPING', `invalid apiVersion "${apiVersion}"`);
    return this.resourceFor({ ...parsed, kind });
  }

  /**
   * resourceForName resolves a kubectl-style resource name (`deploy`, `deployments.apps`,
   * `Widget`) to its resource, as `kubectl get <name>` does.
   */
  async resourceForName(name: string): Promise<ResourceDescriptor> {
    checkArgument(name, NON_EMPTY_STRING, 'name', { where: 'mapper resourceForName' });
    return this.#lookup(
      (resources) => findByName(resources, name),
      () => `the server doesn't have a resource type "${name}"`,
    );
  }

  /** kindFor returns the kind a kubectl-style resource name (`deploy`, `deployments.apps`) holds. */
  async kindFor(name: string): Promise<GroupVersionKind> {
    checkArgument(name, NON_EMPTY_STRING, 'name', { where: 'mapper kindFor' });
    return RestMapper.groupVersionKindOf(await this.resourceForName(name));
  }

  /** groupVersionKindOf returns the kind a resource descriptor holds. */
  static groupVersionKindOf(resource: ResourceDescriptor): GroupVersionKind {
    return { group: resource.group, version: resource.version, kind: resource.kind };
  }
}
