import type { ResolvedConfig } from '@k/config';
import type { DependencyContainer } from 'tsyringe';
import { builtinCredentialProviderFactories } from './auth/builtin-credential-provider-factories.js';
import { CREDENTIAL_PROVIDER_FACTORY, RESOLVED_CONFIG, TRANSPORT } from './tokens.js';
import { createTransport, type TransportOptions } from './transport/create-transport.js';
import type { Transport } from './transport/transport.js';

/** RegisterTransportOptions are {@link TransportOptions} plus an optional config to register. */
export interface RegisterTransportOptions extends Omit<
  TransportOptions,
  'credentialProviderFactories'
> {
  /** config, when given, is registered as `RESOLVED_CONFIG`. */
  config?: ResolvedConfig;
}

/**
 * registerTransport wires @k/transport into `container` (the caller's; never tsyringe's global
 * one unless the caller passes it):
 * - every built-in credential provider factory under `CREDENTIAL_PROVIDER_FACTORY` (add custom
 *   plugins under the same token, before or after; a duplicate kind fails when `TRANSPORT` is
 *   first resolved);
 * - `TRANSPORT`, a factory that builds one transport per registration from `RESOLVED_CONFIG`
 *   and `container.resolveAll(CREDENTIAL_PROVIDER_FACTORY)` on first resolve, then returns it;
 * - `RESOLVED_CONFIG` when `options.config` is given.
 * Uses no decorators and no runtime import of tsyringe.
 */
export function registerTransport(
  container: DependencyContainer,
  options: RegisterTransportOptions = {},
): DependencyContainer {
  const { config, ...transportOptions } = options;
  for (const factory of builtinCredentialProviderFactories()) {
    container.register(CREDENTIAL_PROVIDER_FACTORY, { useValue: factory });
  }
  if (config) container.register(RESOLVED_CONFIG, { useValue: config });
  let transport: Transport | undefined;
  container.register(TRANSPORT, {
    useFactory: (resolver) => {
      transport ??= createTransport(resolver.resolve(RESOLVED_CONFIG), {
        ...transportOptions,
        credentialProviderFactories: resolver.resolveAll(CREDENTIAL_PROVIDER_FACTORY),
      });
      return transport;
    },
  });
  return container;
}
