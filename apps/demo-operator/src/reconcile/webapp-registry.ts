import type { ResourceClientFor } from '@k/clientset';
import type { ConfigMap, ConfigMapList, configMapsResource } from '@k/clientset/core/v1';
import { isAlreadyExists, isNotFound } from '@k/rest';
import { OperatorError } from '../errors.js';
import type { WebApp } from '../generated/web-app-v1beta1.js';
import {
  FIELD_MANAGER,
  MANAGED_BY_LABEL,
  REGISTRY_MAX_BYTES,
  REGISTRY_NAMESPACE_LABEL,
  registryKey,
  registryName,
  registryValue,
} from '../names.js';
import type { OwnWrites } from '@k/runtime';

type ConfigMapsClient = ResourceClientFor<typeof configMapsResource, ConfigMap, ConfigMapList>;

/** registryBytes is the size of `data` as the registry bounds it: every key and value, in UTF-8. */
export function registryBytes(data: Readonly<Record<string, string>> | undefined): number {
  let bytes = 0;
  for (const [key, value] of Object.entries(data ?? {})) {
    bytes += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  return bytes;
}

/**
 * WebAppRegistry lists the address of every WebApp in ConfigMaps of the operator's own
 * namespace, one per namespace with WebApps (`webapp-registry-<namespace>`, labelled with that
 * namespace): state outside the WebApp's namespace, which no owner reference can cover (owners
 * must be in the same namespace), so the operator's finalizer removes an entry before its
 * WebApp goes. A namespace's ConfigMap holds at most {@link REGISTRY_MAX_BYTES} of keys and
 * values: a namespace whose WebApps fill it gets `ERR_OPERATOR_REGISTRY_FULL` for its next
 * ones, and every other namespace goes on as before. Reads come from the informer's cache (with
 * the registry's own latest writes); a write is sent only when the entry differs. Merge patches
 * touch one key each, so concurrent entries never overwrite each other.
 */
export class WebAppRegistry {
  readonly #configMaps: ConfigMapsClient;
  readonly #cache: OwnWrites<ConfigMap>;
  readonly #maxBytes: number;
  /** creating holds, by ConfigMap name, the one create under way: concurrent records wait for it, then patch. */
  readonly #creating = new Map<string, Promise<boolean>>();

  constructor(
    configMaps: ConfigMapsClient,
    cache: OwnWrites<ConfigMap>,
    options: { maxBytes?: number } = {},
  ) {
    this.#configMaps = configMaps;
    this.#cache = cache;
    this.#maxBytes = options.maxBytes ?? REGISTRY_MAX_BYTES;
  }

  /** namespace is where the registry lives. */
  get namespace(): string {
    return this.#configMaps.namespace ?? '';
  }

  /** namespaceListedBy is the namespace whose WebApps `configMap` lists, when it is one of the registry's. */
  static namespaceListedBy(configMap: ConfigMap): string | undefined {
    return configMap.metadata?.labels?.[REGISTRY_NAMESPACE_LABEL];
  }

  #cached(namespace: string): ConfigMap | undefined {
    return this.#cache.get({
      metadata: { namespace: this.namespace, name: registryName(namespace) },
    });
  }

  /** isRecorded: the cached registry of the WebApp's namespace holds `webapp`'s current entry. */
  isRecorded(webapp: WebApp): boolean {
    const namespace = webapp.metadata?.namespace ?? '';
    return this.#cached(namespace)?.data?.[registryKey(webapp)] === registryValue(webapp);
  }

  /**
   * record writes `webapp`'s entry unless the cache shows it already there; true when it wrote.
   * While the namespace's ConfigMap does not exist, one record creates it with its entry and the
   * others wait for that create, then patch theirs in (no create that fails because another won
   * the race). Rejects with `ERR_OPERATOR_REGISTRY_FULL`, sending nothing, when the entry would
   * take the ConfigMap past its bound (records running at once may pass it by an entry each).
   */
  async record(webapp: WebApp): Promise<boolean> {
    if (this.isRecorded(webapp)) return false;
    const namespace = webapp.metadata?.namespace ?? '';
    const name = registryName(namespace);
    const data = { [registryKey(webapp)]: registryValue(webapp) };
    if (!this.#cached(namespace)) {
      const creating = this.#creating.get(name);
      if (creating) {
        await creating.catch(() => false);
      } else {
        const create = this.#create(namespace, data);
        this.#creating.set(name, create);
        try {
          if (await create) return true;
        } finally {
          this.#creating.delete(name);
        }
      }
    }
    this.#checkRoom(namespace, data);
    this.#cache.remember(
      await this.#configMaps.patch(name, 'merge', { data }, { fieldManager: FIELD_MANAGER }),
    );
    return true;
  }

  /** checkRoom throws `ERR_OPERATOR_REGISTRY_FULL` when `entry` would take the namespace's ConfigMap past its bound. */
  #checkRoom(namespace: string, entry: Record<string, string>): void {
    const current = this.#cached(namespace)?.data ?? {};
    if (registryBytes({ ...current, ...entry }) <= this.#maxBytes) return;
    // The same message while the ConfigMap stays full, so the status it goes to stays as it is.
    throw new OperatorError(
      'ERR_OPERATOR_REGISTRY_FULL',
      `the registry of namespace ${namespace} is full (ConfigMap ${this.namespace}/${registryName(namespace)}, ` +
        `at most ${this.#maxBytes} bytes of keys and values): the entry is recorded once entries of the namespace go`,
    );
  }

  /** create makes the namespace's ConfigMap holding `data`; false when it already existed. */
  async #create(namespace: string, data: Record<string, string>): Promise<boolean> {
    try {
      const created = await this.#configMaps.create(
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name: registryName(namespace),
            labels: { [MANAGED_BY_LABEL]: FIELD_MANAGER, [REGISTRY_NAMESPACE_LABEL]: namespace },
          },
          data,
        },
        { fieldManager: FIELD_MANAGER },
      );
      this.#cache.remember(created);
      return true;
    } catch (error) {
      if (isAlreadyExists(error)) return false;
      throw error;
    }
  }

  /**
   * forget removes `webapp`'s entry; true when it wrote. Resolves only once the entry is gone (or
   * the namespace's ConfigMap is), so the finalizer is removed after the clean-up succeeded,
   * never before.
   */
  async forget(webapp: WebApp): Promise<boolean> {
    const namespace = webapp.metadata?.namespace ?? '';
    const cached = this.#cached(namespace);
    if (cached && cached.data?.[registryKey(webapp)] === undefined) return false;
    try {
      this.#cache.remember(
        await this.#configMaps.patch(
          registryName(namespace),
          'merge',
          { data: { [registryKey(webapp)]: null } },
          { fieldManager: FIELD_MANAGER },
        ),
      );
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  /**
   * missingEntries lists the WebApps (of `webapps`, none being deleted) whose entry the registry
   * lacks or has wrong, as the cache has it now: a deleted ConfigMap lacks every entry.
   */
  missingEntries(webapps: readonly WebApp[]): WebApp[] {
    return webapps.filter(
      (webapp) => !webapp.metadata?.deletionTimestamp && !this.isRecorded(webapp),
    );
  }
}
