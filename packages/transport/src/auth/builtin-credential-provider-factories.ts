import { execCredentialProviderFactory } from '../exec/exec-credential-provider.js';
import { oidcCredentialProviderFactory } from '../oidc/oidc-credential-provider.js';
import { BasicCredentialProviderFactory } from './basic-credential-provider.js';
import type { CredentialProviderFactory } from './credential-provider.js';
import { RemovedAuthProviderFactory } from './removed-auth-provider-factory.js';
import { TokenCredentialProviderFactory } from './token-credential-provider.js';

/**
 * builtinCredentialProviderFactories returns the factories k ships, one per kind: `token`,
 * `basic`, `exec`, `oidc`, and the removed `gcp` and `azure` auth-providers (which fail with client-go's
 * message). It is what `createTransport` selects from by default and what `registerTransport`
 * registers under `CREDENTIAL_PROVIDER_FACTORY`. To add a plugin without a container:
 * `createTransport(config, { credentialProviderFactories: [...builtinCredentialProviderFactories(), plugin] })`.
 */
export function builtinCredentialProviderFactories(): CredentialProviderFactory[] {
  return [
    new TokenCredentialProviderFactory(),
    new BasicCredentialProviderFactory(),
    execCredentialProviderFactory,
    oidcCredentialProviderFactory,
    new RemovedAuthProviderFactory('gcp'),
    new RemovedAuthProviderFactory('azure'),
  ];
}
