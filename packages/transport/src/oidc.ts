// @k/transport/oidc: the OIDC auth-provider plugin, piece by piece.
export {
  OidcCredentialProvider,
  createOidcCredentialProviderFactory,
  oidcCredentialProviderFactory,
  createIdentityProviderDispatcher,
  OIDC_CONFIG_KEYS,
} from './oidc/oidc-credential-provider.js';
export type { OidcCredentialProviderOptions } from './oidc/oidc-credential-provider.js';
export { idTokenExpiry, isIdTokenValid, ID_TOKEN_EXPIRY_DELTA_MS } from './oidc/id-token-expiry.js';
export { discoverTokenEndpoint, refreshIdToken } from './oidc/refresh-id-token.js';
export type { RefreshIdTokenOptions, RefreshedTokens } from './oidc/refresh-id-token.js';
