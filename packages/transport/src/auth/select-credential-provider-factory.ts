import type { AuthMethod } from '@k/config';
import { expectAuthMethod, expectFactories } from '../checks/argument-checks.js';
import { TransportError } from '../errors.js';
import type { CredentialProviderFactory } from './credential-provider.js';

/**
 * credentialProviderKind is the factory kind a user's resolved auth needs: `token`, `basic`,
 * `exec`, or for an `auth-provider` user the provider's `name` (`oidc`, a custom plugin's name).
 * `undefined` for users with no credential other than, perhaps, a client certificate.
 */
export function credentialProviderKind(auth: AuthMethod): string | undefined {
  expectAuthMethod(auth, 'credentialProviderKind', 'auth');
  switch (auth.kind) {
    case 'none':
      return undefined;
    case 'auth-provider':
      return auth.name;
    default:
      return auth.kind;
  }
}

/**
 * selectCredentialProviderFactory picks the factory for `auth` among `factories`. It first
 * checks that no two factories share a kind (`credential provider kind "<kind>" is registered
 * twice`, client-go's registry rule), then returns the one whose kind is
 * {@link credentialProviderKind}, or `undefined` when the user needs none. A missing kind is
 * `no credential provider for auth-provider "<name>"` (or `… for "<kind>" users`).
 */
export function selectCredentialProviderFactory(
  auth: AuthMethod,
  factories: readonly CredentialProviderFactory[],
): CredentialProviderFactory | undefined {
  expectAuthMethod(auth, 'selectCredentialProviderFactory', 'auth');
  expectFactories(factories, 'selectCredentialProviderFactory', 'factories');
  const byKind = new Map<string, CredentialProviderFactory>();
  for (const factory of factories) {
    if (byKind.has(factory.kind)) {
      throw new TransportError(
        'ERR_TRANSPORT_CREDENTIAL_PROVIDER_DUPLICATE',
        `credential provider kind "${factory.kind}" is registered twice`,
      );
    }
    byKind.set(factory.kind, factory);
  }
  const kind = credentialProviderKind(auth);
  if (kind === undefined) return undefined;
  const factory = byKind.get(kind);
  if (factory) return factory;
  throw new TransportError(
    'ERR_TRANSPORT_CREDENTIAL_PROVIDER_NOT_FOUND',
    auth.kind === 'auth-provider'
      ? `no credential provider for auth-provider "${kind}"`
      : `no credential provider for "${kind}" users`,
  );
}
