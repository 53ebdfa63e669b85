import type { ResolvedConfig } from '@k/config';
import type { DependencyContainer } from 'tsyringe';
import {
  CREDENTIAL_PROVIDER_FACTORY,
  RESOLVED_CONFIG,
  TRANSPORT,
  TRANSPORT_INTERCEPTOR,
} from './tokens.js';
import { createTransport, type TransportOptions } from './transport/create-transport.js';
import type { Transport } from './transport/transport.js';

/** RegisterTransportOptions are {@link TransportOptions} plus an optional config to register. */
export interface RegisterTransportOptions extends Omit<
  TransportOptions,
  'credentialProviderFactories'
> {
  /** config, when given, is registered as `RESOLVED_CONFIG`. */
  config?: ResolvedConfig | undefined;
}

/**
 * registerTransport wires @k/transport into `container` (the caller's; never tsyringe's global
 * one unless the caller passes it):
 * - `TRANSPORT`, a factory that builds one transport per registration from `RESOLVED_CONFIG` on
 *   first resolve, then returns it, with the built-in credential providers plus every plugin
 *   registered under `CREDENTIAL_PROVIDER_FACTORY` — in this container or, when it has none, a
 *   parent (the built-ins are not registered under the token, so they never hide a parent's
 *   plugins); a duplicate kind fails when `TRANSPORT` is first resolved;
 * - `RESOLVED_CONFIG` when `options.config` is given.
 * `TRANSPORT` also places every `TRANSPORT_INTERCEPTOR` registered (here or in a parent
 * container) after `options.interceptors`.
 * Uses no decorators and no runtime import of tsyringe. The application owns the transport:
 * close it (or the `REST_CLIENT` / `CLIENTSET` made over it, which close it for you).
 */
export function registerTransport(
  container: DependencyContainer,
  options: RegisterTransportOptions = {},
): DependencyContainer {
  const { config, ...transportOptions } = options;
  if (config) container.register(RESOLVED_CONFIG, { useValue: config });
  let transport: Transport | undefined;
  container.register(TRANSPORT, {
    useFactory: (resolver) => {
      transport ??= createTransport(resolver.resolve(RESOLVED_CONFIG), {
        ...transportOptions,
        credentialProviderFactories: resolver.isRegistered(CREDENTIAL_PROVIDER_FACTORY, true)
          ? resolver.resolveAll(CREDENTIAL_PROVIDER_FACTORY)
          : [],
        interceptors: resolver.isRegistered(TRANSPORT_INTERCEPTOR, true)
          ? [
              ...(transportOptions.interceptors ?? []),
              ...resolver.resolveAll(TRANSPORT_INTERCEPTOR),
            ]
          : transportOptions.interceptors,
      });
      return transport;
    },
  });
  return container;
}
