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
import { FUNCTION, REST_CLIENT, withMethods } from './validation/argument-rules.js';
import { checkArgument, checkOptions, type OptionRules } from './validation/check-arguments.js';

const CLIENTSET_OPTIONS: OptionRules = {
  rules: {
    discovery: withMethods('a DiscoveryClient', 'serverResources', 'refresh', 'invalidate'),
    mapper: withMethods('a RestMapper', 'mappingFor', 'resourceFor', 'kindFor'),
    dynamic: withMethods('a DynamicClient', 'resource', 'forKind', 'forObject'),
    onClose: FUNCTION,
  },
};

/** ClientsetOptions supply a clientset's parts instead of the defaults made from its `RestClient`. */
export interface ClientsetOptions {
  discovery?: DiscoveryClient;
  mapper?: RestMapper;
  dynamic?: DynamicClient;
  /** onClose runs once on {@link Clientset.close} (createClientset closes the transport it made). */
  onClose?: () => Promise<void>;
}

/**
 * Clientset is every built-in API group in one object (`cs.coreV1.pods('ns')`,
 * `cs.appsV1.deployments('ns')`, `cs.coreV1.namespaces()`), plus discovery, a REST mapper, the
 * dynamic client and {@link applyManifests}. Every part sends through the one `RestClient` it
 * was made with, so they share one connection pool, token bucket and retry policy (client-go's
 * `NewForConfig`). Group clients are made on first use and kept. Safe for concurrent use.
 *
 * Without DI: `new Clientset(createRestClient(await inferConfig()))`; with DI: `createClientset()`.
 */
export class Clientset extends GroupVersionClients {
  readonly rest: RestClient;
  readonly discovery: DiscoveryClient;
  readonly mapper: RestMapper;
  readonly dynamic: DynamicClient;
  readonly #groups = new Map<GroupVersionDefinition, unknown>();
  readonly #onClose: (() => Promise<void>) | undefined;
  #closed: Promise<void> | undefined;

  constructor(rest: RestClient, options: ClientsetOptions = {}) {
    checkArgument(rest, REST_CLIENT, 'rest', { where: 'Clientset' });
    checkOptions(options, CLIENTSET_OPTIONS, { where: 'Clientset' });
    super();
    this.rest = rest;
    this.discovery = options.discovery ?? new DiscoveryClient(rest);
    this.mapper = options.mapper ?? new RestMapper(this.discovery);
    this.dynamic = options.dynamic ?? new DynamicClient(rest, this.mapper);
    this.#onClose = options.onClose;
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
   * close releases what the clientset owns: with `createClientset`, its transport. Watches and
   * log streams open on it end first (watch loops end normally, streams quietly: they would
   * otherwise hold the transport open until the server ends them); requests in flight finish,
   * idle connections close, and later requests fail. A clientset made with `new` owns nothing
   * (and ends no watch) unless given `onClose`. Calling it again returns the same promise.
   *
   * Nothing @k/clientset leaves behind keeps a process alive once it is idle: idle pooled
   * connections do not hold Node's event loop, so a program that never calls `close()` still
   * exits when its work is done. An open watch (or a followed log stream) does hold it, as an
   * open connection should.
   */
  close(): Promise<void> {
    this.#closed ??= this.#release();
    return this.#closed;
  }

  async #release(): Promise<void> {
    if (!this.#onClose) return;
    this.rest.closeStreams();
    await this.#onClose();
  }
}
