import type { RestClient } from '@k/rest';
import {
  applyManifests,
  type AppliedManifest,
  type ApplyManifestsOptions,
} from './apply/apply-manifests.js';
import { DiscoveryClient } from './discovery/discovery-client.js';
import { RestMapper } from './discovery/rest-mapper.js';
import { DynamicClient } from './dynamic/dynamic-client.js';
import { GroupVersionClients } from './generated/groups.js';
import {
  createGroupVersionClient,
  type GroupVersionDefinition,
} from './group/group-version-client.js';
import { REST_CLIENT, withMethods } from './validation/argument-rules.js';
import { checkArgument, checkOptions, type OptionRules } from './validation/check-arguments.js';

const CLIENTSET_PARTS: OptionRules = {
  rules: {
    discovery: withMethods('a DiscoveryClient', 'serverResources', 'refresh', 'invalidate'),
    mapper: withMethods('a RestMapper', 'mappingFor', 'resourceFor', 'kindFor'),
    dynamic: withMethods('a DynamicClient', 'resource', 'forKind', 'forObject'),
  },
};

/** ClientsetParts supply a clientset's parts instead of the defaults made from its `RestClient`. */
export interface ClientsetParts {
  discovery?: DiscoveryClient | undefined;
  mapper?: RestMapper | undefined;
  dynamic?: DynamicClient | undefined;
}

/**
 * Clientset is every built-in API group in one object (`cs.coreV1.pods('ns')`,
 * `cs.appsV1.deployments()`, `cs.coreV1.namespaces()`), plus discovery, a REST mapper, the
 * dynamic client and {@link applyManifests}. Every part sends through the one `RestClient` it
 * was made with, so they share one connection pool, token bucket and retry policy (client-go's
 * `NewForConfig`). A namespaced client called without a namespace uses {@link defaultNamespace},
 * the context's, as kubectl does; `''` (`ALL_NAMESPACES`) means every namespace. Group clients
 * are made on first use and kept. Safe for concurrent use.
 *
 * By hand: `createClientset(config)` or `await inferClientset()`; from parts:
 * `new Clientset(restClient)`; by DI: `@k/clientset/di`.
 */
export class Clientset extends GroupVersionClients {
  readonly rest: RestClient;
  readonly discovery: DiscoveryClient;
  readonly mapper: RestMapper;
  readonly dynamic: DynamicClient;
  readonly #groups = new Map<GroupVersionDefinition, unknown>();
  #closed: Promise<void> | undefined;

  constructor(rest: RestClient, parts: ClientsetParts = {}) {
    checkArgument(rest, REST_CLIENT, 'rest', { where: 'Clientset' });
    checkOptions(parts, CLIENTSET_PARTS, { where: 'Clientset' }, 'parts');
    super();
    this.rest = rest;
    this.discovery = parts.discovery ?? new DiscoveryClient(rest);
    this.mapper = parts.mapper ?? new RestMapper(this.discovery);
    this.dynamic = parts.dynamic ?? new DynamicClient(rest, this.mapper);
  }

  /** defaultNamespace is the context's namespace (`default` when it names none), the REST client's. */
  get defaultNamespace(): string {
    return this.rest.defaultNamespace;
  }

  protected override groupVersionClient<Client>(definition: GroupVersionDefinition): Client {
    let client = this.#groups.get(definition) as Client | undefined;
    if (client === undefined) {
      client = createGroupVersionClient<Client>(this.rest, definition);
      this.#groups.set(definition, client);
    }
    return client;
  }

  /**
   * applyManifests server-side applies multi-document YAML (see {@link applyManifests}); the
   * options need `fieldManager`.
   */
  applyManifests(text: string, options: ApplyManifestsOptions): Promise<AppliedManifest[]> {
    return applyManifests(this.dynamic, text, options);
  }

  /**
   * close closes the clientset's `RestClient`: its open watches and log streams end (watch loops
   * end normally, streams quietly: they would otherwise hold the transport open until the
   * server ends them), then the transport it owns closes — one `createClientset`,
   * `inferClientset` or the DI container made; requests in flight finish first. Later requests
   * fail. Calling it again returns the same promise.
   *
   * Nothing @k/clientset leaves behind keeps a process alive once it is idle: idle pooled
   * connections do not hold Node's event loop, so a program that never calls `close()` still
   * exits when its work is done. An open watch (or a followed log stream) does hold it, as an
   * open connection should.
   */
  close(): Promise<void> {
    this.#closed ??= this.rest.close();
    return this.#closed;
  }
}
