import type { ResourceClientFor } from '@k/clientset';
import type { ConfigMap, ConfigMapList, configMapsResource } from '@k/clientset/core/v1';
import { isAlreadyExists, isNotFound } from '@k/rest';
import type { WebApp } from '../generated/web-app-v1alpha1.js';
import { FIELD_MANAGER, REGISTRY_NAME, registryKey, registryValue } from '../names.js';
import type { OwnWrites } from './own-writes.js';

type ConfigMapsClient = ResourceClientFor<typeof configMapsResource, ConfigMap, ConfigMapList>;

/**
 * WebAppRegistry is a ConfigMap in the operator's own namespace that lists the address of every
 * WebApp in the cluster: state outside the WebApp's namespace, which no owner reference can
 * cover (owners must be in the same namespace), so the operator's finalizer removes an entry
 * before its WebApp goes. Reads come from the informer's cache (with the registry's own latest
 * writes); a write is sent only when the entry differs. Merge patches touch one key each, so concurrent entries never overwrite each other.
 */
export class WebAppRegistry {
  readonly #configMaps: ConfigMapsClient;
  readonly #cache: OwnWrites<ConfigMap>;
  /** creating is the one create of the registry under way: concurrent records wait for it, then patch. */
  #creating: Promise<boolean> | undefined;

  constructor(configMaps: ConfigMapsClient, cache: OwnWrites<ConfigMap>) {
    this.#configMaps = configMaps;
    this.#cache = cache;
  }

  /** namespace is where the registry lives. */
  get namespace(): string {
    return this.#configMaps.namespace ?? '';
  }

  #cached(): ConfigMap | undefined {
    return this.#cache.get(`${this.namespace}/${REGISTRY_NAME}`);
  }

  /** isRecorded: the cached registry holds `webapp`'s current entry. */
  isRecorded(webapp: WebApp): boolean {
    return this.#cached()?.data?.[registryKey(webapp)] === registryValue(webapp);
  }

  /**
   * record writes `webapp`'s entry unless the cache shows it already there; true when it wrote.
   * While the registry does not exist, one record creates it with its entry and the others wait
   * for that create, then patch theirs in (no create that fails because another won the race).
   */
  async record(webapp: WebApp): Promise<boolean> {
    if (this.isRecorded(webapp)) return false;
    const data = { [registryKey(webapp)]: registryValue(webapp) };
    if (!this.#cached()) {
      if (this.#creating) {
        await this.#creating.catch(() => false);
      } else {
        this.#creating = this.#create(data);
        try {
          if (await this.#creating) return true;
        } finally {
          this.#creating = undefined;
        }
      }
    }
    this.#cache.remember(
      await this.#configMaps.patch(
        REGISTRY_NAME,
        'merge',
        { data },
        { fieldManager: FIELD_MANAGER },
      ),
    );
    return true;
  }

  /** create makes the registry holding `data`; false when it already existed. */
  async #create(data: Record<string, string>): Promise<boolean> {
    try {
      const created = await this.#configMaps.create(
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name: REGISTRY_NAME,
            labels: { 'app.kubernetes.io/managed-by': FIELD_MANAGER },
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
   * the registry is), so the finalizer is removed after the clean-up succeeded, never before.
   */
  async forget(webapp: WebApp): Promise<boolean> {
    const cached = this.#cached();
    if (cached && cached.data?.[registryKey(webapp)] === undefined) return false;
    try {
      this.#cache.remember(
        await this.#configMaps.patch(
          REGISTRY_NAME,
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
   * lacks or has wrong, as the cache has it now: a deleted registry lacks every entry.
   */
  missingEntries(webapps: readonly WebApp[]): WebApp[] {
    return webapps.filter(
      (webapp) => !webapp.metadata?.deletionTimestamp && !this.isRecorded(webapp),
    );
  }
}
