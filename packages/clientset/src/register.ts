import type { ResolvedConfig } from '@k/config';
import { REST_CLIENT, registerRest, withKubeconfigPersister } from '@k/rest/di';
import { RESOLVED_CONFIG, TRANSPORT, registerTransport } from '@k/transport/di';
import type { DependencyContainer } from 'tsyringe';
import { Clientset } from './clientset.js';
import type { ClientsetOptions, DiskDiscoveryCacheSettings } from './create-clientset.js';
import type { DiscoveryCache } from './discovery/discovery-cache.js';
import { DiskDiscoveryCache } from './discovery/disk-discovery-cache.js';
import { DiscoveryClient } from './discovery/discovery-client.js';
import { MemoryDiscoveryCache } from './discovery/memory-discovery-cache.js';
import { RestMapper } from './discovery/rest-mapper.js';
import { DynamicClient } from './dynamic/dynamic-client.js';
import { ClientsetError } from './errors.js';
import {
  DISCOVERY_CACHE as A_DISCOVERY_CACHE,
  isPlainObject,
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
 * RegisterClientsetOptions configure {@link registerClientset}: `createClientset`'s options, and
 * the configuration to register as @k/transport's `RESOLVED_CONFIG`.
 */
export interface RegisterClientsetOptions extends ClientsetOptions {
  config?: ResolvedConfig | undefined;
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
 * registerClientset wires the client layers into `container` (the caller's; never tsyringe's
 * global one): @k/transport (`registerTransport`, with `options.config` as `RESOLVED_CONFIG` and
 * `options.transport`) unless `TRANSPORT` is registered already, @k/rest (`registerRest` with
 * the REST options) unless `REST_CLIENT` is, then @k/clientset's own factories, each making its
 * instance once: `DISCOVERY_CACHE`, `DISCOVERY_CLIENT`, `REST_MAPPER`, `DYNAMIC_CLIENT` and
 * `CLIENTSET`. Register any token again afterwards to replace it; auth plugins go under
 * `CREDENTIAL_PROVIDER_FACTORY`, in this container or a parent. Registering twice is an error.
 * `CLIENTSET`'s `close()` closes the transport the container made. Uses no decorators, no
 * runtime import of tsyringe, no `Reflect` polyfill: the application loads its own.
 */
export function registerClientset(
  container: DependencyContainer,
  options: RegisterClientsetOptions = {},
): DependencyContainer {
  const context = { where: 'registerClientset' };
  checkArgument(container, CONTAINER, 'container', context);
  checkOptions(
    options,
    {
      rules: {
        discoveryCache: {
          expected: 'a DiscoveryCache or { directory, ttlMs }',
          test: (value) => A_DISCOVERY_CACHE.test(value) || isPlainObject(value),
        },
      },
    },
    context,
  );
  if (container.isRegistered(CLIENTSET, false)) {
    throw new ClientsetError(
      'ERR_CLIENTSET_CONFIGURATION',
      '@k/clientset is already registered in this container',
    );
  }
  const { config, transport, discoveryCache, ...restOptions } = options;
  if (config) container.register(RESOLVED_CONFIG, { useValue: config });
  if (!container.isRegistered(TRANSPORT, true)) {
    registerTransport(
      container,
      config ? withKubeconfigPersister(config, transport ?? {}) : transport,
    );
  }
  if (!container.isRegistered(REST_CLIENT, true)) registerRest(container, restOptions);
  container.register(DISCOVERY_CACHE, {
    useFactory: once(() =>
      discoveryCache === undefined
        ? new MemoryDiscoveryCache()
        : A_DISCOVERY_CACHE.test(discoveryCache)
          ? (discoveryCache as DiscoveryCache)
          : new DiskDiscoveryCache(discoveryCache as DiskDiscoveryCacheSettings),
    ),
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
        }),
    ),
  });
  return container;
}
