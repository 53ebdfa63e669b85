import type { RestClient } from '@k/rest';
import { ClientsetError } from '../errors.js';
import type { ResourceDescriptor } from '../resource/resource-descriptor.js';
import {
  DISCOVERY_CACHE,
  NON_EMPTY_STRING,
  REST_CLIENT,
  STRING,
} from '../validation/argument-rules.js';
import { checkArgument, checkOptions } from '../validation/check-arguments.js';
import type { DiscoveryCache } from './discovery-cache.js';
import { MemoryDiscoveryCache } from './memory-discovery-cache.js';
import {
  fromAggregated,
  fromResourceList,
  type AggregatedDiscoveryList,
  type APIGroupList,
  type APIResourceList,
  type APIVersions,
  type DiscoveredGroup,
  type ServerResources,
} from './discovery-documents.js';

/**
 * AGGREGATED_DISCOVERY_ACCEPT asks for aggregated discovery (v2, then v2beta1) and accepts the
 * legacy documents, exactly as client-go's discovery client does.
 */
export const AGGREGATED_DISCOVERY_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

/** VersionInfo is the server's `/version`. */
export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  [field: string]: unknown;
}

/** DiscoveryClientOptions configure a {@link DiscoveryClient}. */
export interface DiscoveryClientOptions {
  /** cache keeps discovery between calls (default: a new {@link MemoryDiscoveryCache}). */
  cache?: DiscoveryCache | undefined;
}

function isAggregated(value: unknown): value is AggregatedDiscoveryList {
  return (value as { kind?: unknown } | null)?.kind === 'APIGroupDiscoveryList';
}

/**
 * DiscoveryClient finds what the server serves: groups, versions and every resource with its
 * verbs, scope and subresources. It asks `/api` and `/apis` for aggregated discovery (two
 * requests for everything) and falls back to the legacy documents (one request per group
 * version) when the server answers plain lists; a legacy group version that fails (an aggregated
 * API that is down) is left out and named in `failedGroupVersions`. Results are kept in the
 * cache until {@link invalidate}; concurrent callers share one fetch.
 */
export class DiscoveryClient {
  readonly rest: RestClient;
  readonly cache: DiscoveryCache;
  readonly #key: string;
  #inflight: Promise<ServerResources> | undefined;

  constructor(rest: RestClient, options: DiscoveryClientOptions = {}) {
    const context = { where: 'DiscoveryClient' };
    checkArgument(rest, REST_CLIENT, 'rest', context);
    checkOptions(options, { rules: { cache: DISCOVERY_CACHE } }, context);
    this.rest = rest;
    this.cache = options.cache ?? new MemoryDiscoveryCache();
    this.#key = rest.server.url.href;
  }

  /** serverResources returns the cached discovery, fetching it when the cache has none. */
  async serverResources(): Promise<ServerResources> {
    const cached = await this.cache.get(this.#key);
    if (cached) return cached;
    return this.refresh();
  }

  /** refresh fetches discovery now (sharing a fetch already running) and stores it in the cache. */
  refresh(): Promise<ServerResources> {
    this.#inflight ??= (async () => {
      try {
        const resources = await this.#fetch();
        await this.cache.set(this.#key, resources);
        return resources;
      } finally {
        this.#inflight = undefined;
      }
    })();
    return this.#inflight;
  }

  /** invalidate forgets the cached discovery, so the next call fetches again (new CRDs appear). */
  invalidate(): Promise<void> {
    return this.cache.delete(this.#key);
  }

  /** serverGroups returns the groups, each with its versions (preferred first). */
  async serverGroups(): Promise<DiscoveredGroup[]> {
    return (await this.serverResources()).groups;
  }

  /** resourcesFor returns the resources of one group version (empty when it is not served). */
  async resourcesFor(group: string, version: string): Promise<ResourceDescriptor[]> {
    checkArgument(group, STRING, 'group', { where: 'discovery resourcesFor' });
    checkArgument(version, NON_EMPTY_STRING, 'version', { where: 'discovery resourcesFor' });
    return (await this.serverResources()).resources.filter(
      (resource) => resource.group === group && resource.version === version,
    );
  }

  /** serverVersion returns `/version` (never cached). */
  serverVersion(): Promise<VersionInfo> {
    return this.rest.get().absPath('/version').execute<VersionInfo>();
  }

  async #fetch(): Promise<ServerResources> {
    const [core, groups] = await Promise.all([
      this.#get<unknown>('/api', AGGREGATED_DISCOVERY_ACCEPT),
      this.#get<unknown>('/apis', AGGREGATED_DISCOVERY_ACCEPT),
    ]);
    if (isAggregated(core) && isAggregated(groups)) return fromAggregated([core, groups]);
    return this.#fetchLegacy(core as APIVersions, groups as APIGroupList);
  }

  async #get<T>(path: string, accept?: string): Promise<T> {
    const builder = this.rest.get().absPath(path);
    if (accept) builder.accept(accept);
    try {
      return await builder.execute<T>();
    } catch (error) {
      throw new ClientsetError(
        'ERR_CLIENTSET_DISCOVERY',
        `discovery of ${path} failed: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
  }

  async #fetchLegacy(core: APIVersions, groupList: APIGroupList): Promise<ServerResources> {
    if (!Array.isArray(core?.versions) || !Array.isArray(groupList?.groups)) {
      throw new ClientsetError(
        'ERR_CLIENTSET_DISCOVERY',
        'the server answered /api or /apis with something that is not discovery',
      );
    }
    const groups: DiscoveredGroup[] = [];
    const targets: { group: string; version: string; path: string }[] = [];
    if (core.versions.length > 0) {
      groups.push({
        name: '',
        versions: [...core.versions],
        preferredVersion: core.versions[0] as string,
      });
      for (const version of core.versions)
        targets.push({ group: '', version, path: `/api/${version}` });
    }
    for (const group of groupList.groups) {
      const versions = group.versions.map((entry) => entry.version);
      const preferred = group.preferredVersion?.version ?? versions[0];
      if (preferred === undefined) continue;
      groups.push({
        name: group.name,
        versions: [preferred, ...versions.filter((version) => version !== preferred)],
        preferredVersion: preferred,
      });
      for (const version of versions) {
        targets.push({ group: group.name, version, path: `/apis/${group.name}/${version}` });
      }
    }
    const failedGroupVersions: string[] = [];
    const lists = await Promise.all(
      targets.map(async (target) => {
        try {
          const list = await this.#get<APIResourceList>(target.path);
          return fromResourceList(target.group, target.version, list);
        } catch {
          failedGroupVersions.push(target.path.replace(/^\/apis?\//, ''));
          return [];
        }
      }),
    );
    return {
      groups,
      resources: lists.flat(),
      aggregated: false,
      failedGroupVersions: failedGroupVersions.sort(),
    };
  }
}
