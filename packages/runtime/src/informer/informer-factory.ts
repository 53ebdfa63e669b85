import { labelSelectorText, type KubernetesObject, type ResourceDescriptor } from '@k/clientset';
import { withDefaults } from '../internal/with-defaults.js';
import { Informer, type InformerHealth, type InformerOptions } from './informer.js';
import type { ListerWatcher } from './reflector.js';

/**
 * InformerFactory shares informers (client-go's `SharedInformerFactory`): one list+watch per
 * resource, namespace, selector and client, however many controllers and handlers use it.
 * `informerFor` returns the existing informer for the same source and selection (the first
 * caller's options win); informers made after `start` are started at once.
 */
export class InformerFactory {
  readonly #defaults: InformerOptions<KubernetesObject>;
  readonly #informers = new Map<string, Informer<never>>();
  readonly #clientIds = new WeakMap<object, number>();
  #nextClientId = 0;
  #signal: AbortSignal | undefined;

  constructor(defaults: InformerOptions<KubernetesObject> = {}) {
    this.#defaults = defaults;
  }

  /**
   * informerFor returns the shared informer of `source` (a typed or dynamic resource client) with
   * `options` over the factory's defaults (an option passed as `undefined` keeps the default).
   */
  informerFor<T extends KubernetesObject>(
    source: ListerWatcher<T>,
    options: InformerOptions<T> = {},
  ): Informer<T> {
    const key = this.#keyOf(source, options);
    let informer = this.#informers.get(key) as Informer<T> | undefined;
    if (!informer) {
      informer = new Informer<T>(
        source,
        withDefaults(this.#defaults as unknown as InformerOptions<T>, options),
      );
      this.#informers.set(key, informer as unknown as Informer<never>);
      if (this.#signal) informer.start(this.#signal);
    }
    return informer;
  }

  #idOf(object: object): number {
    let id = this.#clientIds.get(object);
    if (id === undefined) this.#clientIds.set(object, (id = this.#nextClientId++));
    return id;
  }

  #keyOf(
    source: object,
    options: Pick<InformerOptions<never>, 'labelSelector' | 'fieldSelector'>,
  ): string {
    const client = source as {
      descriptor?: ResourceDescriptor;
      namespace?: string;
      rest?: object;
      metadataOnly?: boolean;
    };
    const selection = `${labelSelectorText(options.labelSelector) ?? ''}|${options.fieldSelector ?? ''}`;
    const descriptor = client.descriptor;
    if (!descriptor || !client.rest) return `source#${this.#idOf(source)}|${selection}`;
    return [
      `rest#${this.#idOf(client.rest)}`,
      descriptor.group,
      descriptor.version,
      descriptor.plural,
      client.namespace ?? '',
      client.metadataOnly === true ? 'metadata' : 'objects',
      selection,
    ].join('|');
  }

  /** informers lists every informer made so far. */
  get informers(): Informer<KubernetesObject>[] {
    return [...this.#informers.values()] as unknown as Informer<KubernetesObject>[];
  }

  /** start starts every informer (and those made later) until `signal` aborts. */
  start(signal: AbortSignal): void {
    this.#signal = signal;
    for (const informer of this.#informers.values()) informer.start(signal);
  }

  /** waitForSync resolves when every informer made so far has synced (see `Informer.waitForSync`). */
  async waitForSync(signal?: AbortSignal): Promise<void> {
    await Promise.all(
      [...this.#informers.values()].map((informer) => informer.waitForSync(signal)),
    );
  }

  /** stop stops every informer and resolves once they stopped; informers made later wait for `start`. */
  async stop(): Promise<void> {
    this.#signal = undefined;
    await Promise.all([...this.#informers.values()].map((informer) => informer.stop()));
  }

  /** health is every informer's health. */
  health(): InformerHealth[] {
    return [...this.#informers.values()].map((informer) => informer.health());
  }
}
