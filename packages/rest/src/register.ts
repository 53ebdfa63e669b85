import { RESOLVED_CONFIG, TRANSPORT } from '@k/transport/di';
import type { ApiServerDispatcher } from '@k/transport';
import type { DependencyContainer } from 'tsyringe';
import { ownDispatcher, RestClient } from './client/rest-client.js';
import { resolveRestClientOptions, type RestClientOptions } from './client/rest-client-options.js';
import { RestConfigurationError } from './errors.js';
import {
  RATE_LIMITER,
  REST_CLIENT,
  REST_CLIENT_OPTIONS,
  REST_TRANSPORT,
  RETRY_POLICY,
  WARNING_HANDLER,
} from './tokens.js';

/** RegisterRestOptions configure {@link registerRest}: the client options, and what to send through. */
export interface RegisterRestOptions extends RestClientOptions {
  /**
   * transport to send through. Default: `REST_TRANSPORT` if registered, else @k/transport's
   * `TRANSPORT` (from `registerTransport`).
   */
  transport?: ApiServerDispatcher | undefined;
}

function once<T>(
  create: (container: DependencyContainer) => T,
): (container: DependencyContainer) => T {
  let created: { value: T } | undefined;
  return (container) => (created ??= { value: create(container) }).value;
}

/**
 * registerRest wires @k/rest into `container` (the caller's; never tsyringe's global one) with
 * factories, each creating its instance once per container: `RATE_LIMITER` (one token bucket for
 * every client of the container), `RETRY_POLICY`, `WARNING_HANDLER`, `REST_CLIENT_OPTIONS` and
 * `REST_CLIENT` (core group; derive others with `withGroupVersion`), all from the options through
 * `resolveRestClientOptions` — register any of them again to replace it. `REST_TRANSPORT` is
 * `options.transport`, else what is already registered, else @k/transport's `TRANSPORT`; the
 * timeout defaults to `RESOLVED_CONFIG`'s. Registering twice is an error. A `REST_CLIENT` over
 * the container's own `TRANSPORT` owns it: `client.close()` closes it; a `transport` passed in
 * stays its owner's.
 */
export function registerRest(
  container: DependencyContainer,
  options: RegisterRestOptions = {},
): DependencyContainer {
  if (typeof container?.register !== 'function') {
    throw new RestConfigurationError('registerRest needs a tsyringe DependencyContainer');
  }
  if (container.isRegistered(REST_CLIENT, false)) {
    throw new RestConfigurationError('@k/rest is already registered in this container');
  }
  const { transport, ...clientOptions } = options;
  if (transport) {
    container.register(REST_TRANSPORT, { useValue: transport });
  } else if (!container.isRegistered(REST_TRANSPORT, true)) {
    container.register(REST_TRANSPORT, {
      useFactory: (resolver) => {
        // Made by the container for its clients: they own it, as createRestClient's own it.
        const made = resolver.resolve(TRANSPORT);
        ownDispatcher(made);
        return made;
      },
    });
  }
  // Resolved once, here: a bad option fails at registration, not at the first resolve.
  const defaults = resolveRestClientOptions(clientOptions);
  container.register(RATE_LIMITER, { useFactory: once(() => defaults.throttle) });
  container.register(RETRY_POLICY, { useFactory: once(() => defaults.retry) });
  container.register(WARNING_HANDLER, { useFactory: once(() => defaults.warningHandler) });
  container.register(REST_CLIENT_OPTIONS, { useValue: clientOptions });
  container.register(REST_CLIENT, {
    useFactory: once((resolver) => {
      const config = resolver.isRegistered(RESOLVED_CONFIG, true)
        ? resolver.resolve(RESOLVED_CONFIG)
        : undefined;
      const resolved = resolveRestClientOptions(
        {
          ...resolver.resolve(REST_CLIENT_OPTIONS),
          throttle: resolver.resolve(RATE_LIMITER),
          retry: resolver.resolve(RETRY_POLICY),
          warningHandler: resolver.resolve(WARNING_HANDLER),
        },
        config,
      );
      return new RestClient(resolver.resolve(REST_TRANSPORT), resolved);
    }),
  });
  return container;
}
