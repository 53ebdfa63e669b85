import type { RestClient } from '@k/rest';
import type { DependencyContainer, InjectionToken } from 'tsyringe';
import { Clientset } from './clientset.js';
import { MemoryDiscoveryCache, type DiscoveryCache } from './discovery/discovery-cache.js';
import { DiscoveryClient } from './discovery/discovery-client.js';
import { RestMapper } from './discovery/rest-mapper.js';
import { DynamicClient } from './dynamic/dynamic-client.js';
import { ClientsetError } from './errors.js';
import {
  DISCOVERY_CACHE as A_DISCOVERY_CACHE,
  FUNCTION,
  withMethods,
} from './validation/argument-rules.js';
import { checkArgument, checkOptions } from './validation/check-arguments.js';
import {
  CLIENTSET,
  DISCOVERY_CACHE,
  DISCOVERY_CLIENT,
  DYNAMIC_CLIENT,
  REST_MAPPER,
} from './tokens.js';

/**
 * REST_CLIENT is @k/rest's `REST_CLIENT` token. Tokens are `Symbol.for` names, the same in every
 * copy of a package, so it is spelled out here rather than imported: importing @k/clientset
 * must not load @k/rest (and undici) until a client is actually built.
 */
const REST_CLIENT: InjectionToken<RestClient> = Symbol.for('@k/rest.RestClient');

/** RegisterClientsetOptions configure {@link registerClientset}. */
export interface RegisterClientsetOptions {
  /** discoveryCache replaces the default in-memory cache (e.g. a `DiskDiscoveryCache`). */
  discoveryCache?: DiscoveryCache;
  /** onClose is given to the clientset (see `Clientset.close`). */
  onClose?: () => Promise<void>;
}

const CONTAINER = withMethods(
  'a tsyringe DependencyContainer',
  'register',
  'resolve',
  'isRegistered',
);

function once<T>(
  create: (container: DependencyContainer) => T,
): (container: DependencyContainer) => T {
  let created: { value: T } | undefined;
  return (container) => (created ??= { value: create(container) }).value;
}

/**
 * registerClientset wires @k/clientset into `container` (the caller's; never tsyringe's global
 * one) with factories that each create their instance once per registration, all over @k/rest's
 * `REST_CLIENT` (register @k/transport and @k/rest first, or register `REST_CLIENT` yourself):
 * `DISCOVERY_CACHE`, `DISCOVERY_CLIENT`, `REST_MAPPER`, `DYNAMIC_CLIENT` and `CLIENTSET`. Any of
 * them can be registered again afterwards to replace it. Registering twice is an error. Uses no
 * decorators and no runtime import of tsyringe.
 */
export function registerClientset(
  container: DependencyContainer,
  options: RegisterClientsetOptions = {},
): DependencyContainer {
  const context = { where: 'registerClientset' };
  checkArgument(container, CONTAINER, 'container', context);
  checkOptions(
    options,
    { rules: { discoveryCache: A_DISCOVERY_CACHE, onClose: FUNCTION } },
    context,
  );
  if (container.isRegistered(CLIENTSET, false)) {
    throw new ClientsetError(
      'ERR_CONFIGURATION',
      '@k/clientset is already registered in this container',
    );
  }
  container.register(DISCOVERY_CACHE, {
    useFactory: once(() => options.discoveryCache ?? new MemoryDiscoveryCache()),
  });
  container.register(DISCOVERY_CLIENT, {
    useFactory: once(
      (resolver) =>
        new DiscoveryClient(resolver.resolve(REST_CLIENT), {
          cache: resolver.resolve(DISCOVERY_CACHE),
        }),
    ),
  });
  container.register(REST_MAPPER, {
    useFactory: once((resolver) => new RestMapper(resolver.resolve(DISCOVERY_CLIENT))),
  });
  container.register(DYNAMIC_CLIENT, {
    useFactory: once(
      (resolver) => new DynamicClient(resolver.resolve(REST_CLIENT), resolver.resolve(REST_MAPPER)),
    ),
  });
  container.register(CLIENTSET, {
    useFactory: once(
      (resolver) =>
        new Clientset(resolver.resolve(REST_CLIENT), {
          discovery: resolver.resolve(DISCOVERY_CLIENT),
          mapper: resolver.resolve(REST_MAPPER),
          dynamic: resolver.resolve(DYNAMIC_CLIENT),
          ...(options.onClose ? { onClose: options.onClose } : {}),
        }),
    ),
  });
  return container;
}
