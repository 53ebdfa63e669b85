import type { KubernetesObject } from '@k/clientset';
import { RuntimeError } from '../errors.js';
import { Informer, type InformerOptions } from '../informer/informer.js';
import { InformerFactory } from '../informer/informer-factory.js';
import type { ListerWatcher } from '../informer/reflector.js';
import { withDefaults } from '../internal/with-defaults.js';
import { Controller, type ControllerOptions, type Reconciler } from './controller.js';
import type { Predicate } from './predicates.js';
import { controllerOwnerRequests, type OwnerKind, type ReconcileRequest } from './request.js';

/** ObjectOf is the kind of object a client lists and watches. */
export type ObjectOf<S> = S extends ListerWatcher<infer T extends KubernetesObject> ? T : never;

/**
 * SourceOptions say which objects of a source a controller hears about: the informer's selection
 * and options (a shared informer keeps the options of whoever made it first), and `predicates`
 * that filter its changes.
 */
export interface SourceOptions<T extends KubernetesObject> extends InformerOptions<T> {
  predicates?: readonly Predicate<T>[] | undefined;
}

/** Source is a client a controller makes (or shares) an informer of, or an informer you made. */
export type Source<T extends KubernetesObject> = ListerWatcher<T> | Informer<T>;

/** Watcher is what the builder wires sources into: any controller, whatever its kind. */
interface Watcher {
  watch<O extends KubernetesObject>(
    informer: Informer<O>,
    map: (object: O) => readonly ReconcileRequest[],
    predicates?: readonly Predicate<O>[],
  ): unknown;
}

type Wiring = (controller: Watcher, owner: OwnerKind | undefined) => void;

interface Primary<T extends KubernetesObject, C> {
  client: C;
  informer: Informer<T>;
  predicates: readonly Predicate<T>[];
}

interface BuilderState {
  readonly name: string;
  readonly informers: InformerFactory;
  readonly onComplete: ((controller: Controller<never, never>) => void) | undefined;
  readonly wirings: readonly Wiring[];
  readonly predicates: readonly Predicate[];
  readonly options: ControllerOptions;
}

/** ControllerBuilderOptions configure a builder made without a Manager. */
export interface ControllerBuilderOptions {
  /** informers shares informers with other controllers (default: the builder's own factory). */
  informers?: InformerFactory | undefined;
  /** onComplete is told the controller `complete` built (a Manager adds it). */
  onComplete?: ((controller: Controller<never, never>) => void) | undefined;
}

/**
 * ControllerBuilder wires a controller as controller-runtime's builder does, typed by its `for()`
 * kind: `manager.controller('mirror').for(cs.coreV1.configMaps(''), { labelSelector })
 * .owns(copies).complete(async (configMap, context) => …)`.
 * - `for(client, options)`: the reconciled kind; each change enqueues the object itself, and the
 *   reconciler gets the object from this informer's cache, typed, and the client (`context.client`,
 *   in the object's namespace).
 * - `owns(source)`: objects it creates; a change enqueues the controlling owner of the `for` kind
 *   (from `ownerReferences` with `controller: true`), cluster-scoped or namespaced.
 * - `watches(source, map)`: anything else, mapped to requests by you (`map` is checked against the
 *   source's kind).
 * A source is a client (an informer is made, or shared with the Manager's other controllers with
 * the same selection) or an informer of yours.
 */
export class ControllerBuilder<T extends KubernetesObject = never, C = never> {
  readonly #state: BuilderState;
  readonly #primary: Primary<T, C> | undefined;

  constructor(name: string, options?: ControllerBuilderOptions);
  /** @internal */
  constructor(state: BuilderState, primary: Primary<T, C> | undefined);
  constructor(
    nameOrState: string | BuilderState,
    optionsOrPrimary?: ControllerBuilderOptions | Primary<T, C>,
  ) {
    if (typeof nameOrState === 'string') {
      const options = (optionsOrPrimary ?? {}) as ControllerBuilderOptions;
      this.#state = {
        name: nameOrState,
        informers: options.informers ?? new InformerFactory(),
        onComplete: options.onComplete,
        wirings: [],
        predicates: [],
        options: {},
      };
      this.#primary = undefined;
    } else {
      this.#state = nameOrState;
      this.#primary = optionsOrPrimary as Primary<T, C> | undefined;
    }
  }

  #with(state: Partial<BuilderState>, primary = this.#primary): ControllerBuilder<T, C> {
    return new ControllerBuilder<T, C>({ ...this.#state, ...state }, primary);
  }

  #informerOf<O extends KubernetesObject>(
    source: Source<O>,
    options: SourceOptions<O>,
  ): Informer<O> {
    if (source instanceof Informer) return source;
    const informerOptions: InformerOptions<O> & { predicates?: unknown } = { ...options };
    delete informerOptions.predicates;
    return this.#state.informers.informerFor(source, informerOptions);
  }

  /**
   * for sets the reconciled kind: a client of it (all namespaces: `''`) and which objects, or an
   * informer of yours (then `context.client` is the client it was made from).
   */
  for<S extends ListerWatcher<KubernetesObject>>(
    client: S,
    options?: SourceOptions<ObjectOf<S>>,
  ): ControllerBuilder<ObjectOf<S>, S>;
  for<O extends KubernetesObject>(
    informer: Informer<O>,
    options?: Pick<SourceOptions<O>, 'predicates'>,
  ): ControllerBuilder<O, ListerWatcher<O>>;
  for(
    source: ListerWatcher<KubernetesObject> | Informer<KubernetesObject>,
    options: SourceOptions<KubernetesObject> = {},
  ): unknown {
    if (this.#primary) {
      throw new RuntimeError(
        'ERR_RUNTIME_CONFIGURATION',
        `controller ${this.#state.name}: for() was called twice`,
      );
    }
    const informer = this.#informerOf(source, options);
    return new ControllerBuilder<KubernetesObject, unknown>(this.#state, {
      client: source instanceof Informer ? source.source : source,
      informer,
      predicates: options.predicates ?? [],
    });
  }

  /** owns enqueues the controlling owner (of the `for()` kind) of each changed object of `source`. */
  owns<O extends KubernetesObject>(
    source: Source<O>,
    options: SourceOptions<O> = {},
  ): ControllerBuilder<T, C> {
    const informer = this.#informerOf(source, options);
    const predicates = options.predicates ?? [];
    const name = this.#state.name;
    return this.#with({
      wirings: [
        ...this.#state.wirings,
        (controller, owner) => {
          if (!owner) {
            throw new RuntimeError(
              'ERR_RUNTIME_CONFIGURATION',
              `controller ${name}: owns() needs the kind of the for() client; give it a typed or dynamic client of @k/clientset`,
            );
          }
          controller.watch<O>(informer, (object) => controllerOwnerRequests(object, owner), [
            ...this.#state.predicates,
            ...predicates,
          ]);
        },
      ],
    });
  }

  /** watches enqueues `map(object)` for each changed object of `source`. */
  watches<O extends KubernetesObject>(
    source: Source<O>,
    map: (object: O) => readonly ReconcileRequest[],
    options: SourceOptions<O> = {},
  ): ControllerBuilder<T, C> {
    const informer = this.#informerOf(source, options);
    const predicates = options.predicates ?? [];
    return this.#with({
      wirings: [
        ...this.#state.wirings,
        (controller) =>
          controller.watch<O>(informer, map, [...this.#state.predicates, ...predicates]),
      ],
    });
  }

  /** withPredicates adds predicates to every source of this controller. */
  withPredicates(...predicates: Predicate[]): ControllerBuilder<T, C> {
    return this.#with({ predicates: [...this.#state.predicates, ...predicates] });
  }

  /**
   * withOptions sets controller options over those set before (a Manager's builder starts with its
   * logger, metrics and rate limiter); an option passed as `undefined` keeps the earlier value.
   */
  withOptions(options: ControllerOptions): ControllerBuilder<T, C> {
    return this.#with({ options: withDefaults(this.#state.options, options) });
  }

  /** complete builds the controller (a Manager's builder adds it to the Manager; else start it with `start(signal)`). */
  complete(reconcile: Reconciler<T, C>): Controller<T, C> {
    const primary = this.#primary;
    if (!primary) {
      throw new RuntimeError(
        'ERR_RUNTIME_CONFIGURATION',
        `controller ${this.#state.name}: for() was not called`,
      );
    }
    const controller = new Controller<T, C>(
      this.#state.name,
      {
        informer: primary.informer,
        client: primary.client,
        reconcile,
        predicates: [...this.#state.predicates, ...primary.predicates],
      },
      this.#state.options,
    );
    const descriptor = primary.informer.descriptor;
    const owner = descriptor?.kind
      ? { group: descriptor.group, kind: descriptor.kind, namespaced: descriptor.namespaced }
      : undefined;
    for (const wire of this.#state.wirings) wire(controller, owner);
    this.#state.onComplete?.(controller as never);
    return controller;
  }
}
