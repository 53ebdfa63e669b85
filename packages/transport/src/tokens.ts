import type { ResolvedConfig } from '@k/config';
import type { InjectionToken } from 'tsyringe';
import type { CredentialProviderFactory } from './auth/credential-provider.js';
import type { TransportInterceptor } from './transport/transport-interceptor.js';
import type { Transport } from './transport/transport.js';

/**
 * CREDENTIAL_PROVIDER_FACTORY is the multi-registration token of auth plugins: register one
 * factory per kind (`container.register(CREDENTIAL_PROVIDER_FACTORY, { useValue: factory })`)
 * and the transport resolves them all with `resolveAll`. A duplicate kind is an error.
 */
export const CREDENTIAL_PROVIDER_FACTORY: InjectionToken<CredentialProviderFactory> = Symbol.for(
  '@k/transport.CredentialProviderFactory',
);

/**
 * RESOLVED_CONFIG is the configuration `TRANSPORT` is built from: register it with `useValue`
 * (or pass `config` to `registerTransport`).
 */
export const RESOLVED_CONFIG: InjectionToken<ResolvedConfig> = Symbol.for(
  '@k/transport.ResolvedConfig',
);

/**
 * TRANSPORT is the transport for `RESOLVED_CONFIG`, built once per registration on first
 * resolve with every `CREDENTIAL_PROVIDER_FACTORY`. The application owns it and closes it.
 */
export const TRANSPORT: InjectionToken<Transport> = Symbol.for('@k/transport.Transport');

/**
 * TRANSPORT_INTERCEPTOR is the multi-registration token of user interceptors for the transport
 * stack (`container.register(TRANSPORT_INTERCEPTOR, { useValue: interceptor })`, one
 * `TransportInterceptor` each, in this container or a parent): `TRANSPORT` places them all at
 * their positions. Nothing is registered by default; a duplicate name fails when `TRANSPORT` is
 * first resolved.
 */
export const TRANSPORT_INTERCEPTOR: InjectionToken<TransportInterceptor> = Symbol.for(
  '@k/transport.TransportInterceptor',
);
