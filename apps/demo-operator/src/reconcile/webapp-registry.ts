import type { ResourceClientFor } from '@k/clientset';
import type { ConfigMap, ConfigMapList, configMapsResource } from '@k/clientset/core/v1';
import { isAlreadyExists, isNotFound } from '@k/rest';
import type { Lister } from '@k/runtime';
import type { WebApp } from '../generated/web-app-v1alpha1.js';
import { FIELD_MANAGER, REGISTRY_NAME, registryKey, registryValue } from '../names.js';

type ConfigMapsClient = ResourceClientFor<typeof configMapsResource, ConfigMap, ConfigMapList>;

/**
 * WebAppRegistry is a ConfigMap in the operator's own namespace that lists the address of every
 * WebApp in the cluster: state outside the WebApp's namespace, which no owner reference can
 * cover (owners must be in the same namespace), so the operator's finalizer removes an entry
 * before its WebApp goes. Reads come from the informer's cache; a write is sent only when the
 * entry differs. Merge patches touch one key each, so concurrent entries never overwrite each other.
 */
export class WebAppRegistry {
  readonly #configMaps: ConfigMapsClient;
  readonly #lister: Lister<ConfigMap>;

  constructor(configMaps: ConfigMapsClient, lister: Lister<ConfigMap>) {
    this.#configMaps = configMaps;
    this.#lister = lister;
  }

  /** namespace is where the registry lives. */
  get namespace(): string {
    return this.#configMaps.namespace ?? '';
  }

  #cached(): ConfigMap | undefined {
    return this.#lister.get(`${this.namespace}/${REGISTRY_NAME}`);
  }

  /** isRecorded: the cached registry holds `webapp`'s current entry. */
  isRecorded(webapp: WebApp): boolean {
    return this.#cached()?.data?.[registryKey(webapp)] === registryValue(webapp);
  }

  /** record writes `webapp`'s entry unless the cache shows it already there; true when it wrote. */
  async record(webapp: WebApp): Promise<boolean> {
    if (this.isRecorded(webapp)) return false;
    const data = { [registryKey(webapp)]: registryValue(webapp) };
    if (!this.#cached()) {
      try {
        await this.#configMaps.create(
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
        return true;
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
      }
    }
    await this.#configMaps.patch(REGISTRY_NAME, 'merge', { data }, { fieldManager: FIELD_MANAGER });
    return true;
  }

  /**
   * forget removes `webapp`'s entry; true when it wrote. Resolves only once the entry is gone (or
   * the registry is), so the finalizer is removed after the clean-up succeeded, never before.
   */
  async forget(webapp: WebApp): Promise<boolean> {
    const cached = this.#cached();
    if (cached && cached.data?.[registryKey(webapp)] === undefined) return false;
    try {
      await this.#configMaps.patch(
        REGISTRY_NAME,
        'merge',
        { data: { [registryKey(webapp)]: null } },
        { fieldManager: FIELD_MANAGER },
      );
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  /** missingEntries lists the WebApps (of `webapps`) whose entry `registry` lacks or has wrong. */
  static missingEntries(registry: ConfigMap | undefined, webapps: readonly WebApp[]): WebApp[] {
    return webapps.filter(
      (webapp) =>
        !webapp.metadata?.deletionTimestamp &&
        registry?.data?.[registryKey(webapp)] !== registryValue(webapp),
    );
  }
}
