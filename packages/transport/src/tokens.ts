import type { InjectionToken } from 'tsyringe';
import type { CredentialProviderFactory } from './auth/credential-provider.js';

/**
 * CREDENTIAL_PROVIDER_FACTORY is the multi-registration token of auth plugins: register one
 * factory per kind (`container.register(CREDENTIAL_PROVIDER_FACTORY, { useValue: factory })`)
 * and the transport resolves them all with `resolveAll`. A duplicate kind is an error.
 */
export const CREDENTIAL_PROVIDER_FACTORY: InjectionToken<CredentialProviderFactory> = Symbol.for(
  '@k/transport.CredentialProviderFactory',
);
