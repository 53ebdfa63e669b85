import type { KubernetesObject } from '@k/clientset';
import { RuntimeError } from '../errors.js';
import type { Informer } from '../informer/informer.js';
import { Controller, type ControllerOptions, type Reconciler } from './controller.js';
import type { Predicate } from './predicates.js';
import { controllerOwnerRequests, requestFor, type Request } from './request.js';

interface Watched {
  informer: Informer<KubernetesObject>;
  map: (object: KubernetesObject) => readonly Request[];
  predicates: readonly Predicate[];
}

/**
 * ControllerBuilder wires a controller as controller-runtime's builder does:
 * `new ControllerBuilder('widgets').for(widgets).owns(deployments).watches(configMaps, map)
 *  .withPredicates(generationChanged).complete(reconcile)`.
 * - `for(informer)`: the reconciled kind; each change enqueues the object itself.
 * - `owns(informer)`: objects it creates; a change enqueues the controlling owner of the `for` kind
 *   (from `ownerReferences` with `controller: true`).
 * - `watches(informer, map)`: anything else, mapped to requests by you.
 */
export class ControllerBuilder {
  readonly #name: string;
  #for: { informer: Informer<KubernetesObject>; predicates: readonly Predicate[] } | undefined;
  readonly #owns: { informer: Informer<KubernetesObject>; predicates: readonly Predicate[] }[] = [];
  readonly #watches: Watched[] = [];
  #predicates: readonly Predicate[] = [];
  #options: ControllerOptions = {};

  constructor(name: string) {
    this.#name = name;
  }

  for<T extends KubernetesObject>(
    informer: Informer<T>,
    predicates: readonly Predicate<T>[] = [],
  ): this {
    if (this.#for) {
      throw new RuntimeError(
        'ERR_RUNTIME_CONFIGURATION',
        `controller ${this.#name}: for() was called twice`,
      );
    }
    this.#for = { informer: informer as never, predicates: predicates };
    return this;
  }

  owns<T extends KubernetesObject>(
    informer: Informer<T>,
    predicates: readonly Predicate<T>[] = [],
  ): this {
    this.#owns.push({
      informer: informer as never,
      predicates: predicates,
    });
    return this;
  }

  watches<T extends KubernetesObject>(
    informer: Informer<T>,
    map: (object: T) => readonly Request[],
    predicates: readonly Predicate<T>[] = [],
  ): this {
    this.#watches.push({
      informer: informer as never,
      map: map as Watched['map'],
      predicates: predicates,
    });
    return this;
  }

  /** withPredicates adds predicates to every watch of this controller. */
  withPredicates(...predicates: Predicate[]): this {
    this.#predicates = [...this.#predicates, ...predicates];
    return this;
  }

  withOptions(options: ControllerOptions): this {
    this.#options = { ...this.#options, ...options };
    return this;
  }

  /** complete builds the controller (start it with `start(signal)` or a Manager). */
  complete(reconcile: Reconciler): Controller {
    const primary = this.#for;
    if (!primary) {
      throw new RuntimeError(
        'ERR_RUNTIME_CONFIGURATION',
        `controller ${this.#name}: for() was not called`,
      );
    }
    const controller = new Controller(this.#name, reconcile, this.#options);
    controller.watch(primary.informer, (object) => [requestFor(object)], [
      ...this.#predicates,
      ...primary.predicates,
    ]);
    if (this.#owns.length > 0) {
      const descriptor = primary.informer.descriptor;
      if (!descriptor?.kind) {
        throw new RuntimeError(
          'ERR_RUNTIME_CONFIGURATION',
          `controller ${this.#name}: owns() needs the kind of the for() informer; build it from a typed client`,
        );
      }
      const owner = {
        group: descriptor.group,
        kind: descriptor.kind,
        namespaced: descriptor.namespaced,
      };
      for (const owned of this.#owns) {
        controller.watch(owned.informer, (object) => controllerOwnerRequests(object, owner), [
          ...this.#predicates,
          ...owned.predicates,
        ]);
      }
    }
    for (const watched of this.#watches) {
      controller.watch(watched.informer, watched.map, [...this.#predicates, ...watched.predicates]);
    }
    return controller;
  }
}
