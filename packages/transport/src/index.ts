export { CREDENTIAL_PROVIDER_FACTORY } from './tokens.js';
export type {
  ClientCertificate,
  CredentialProvider,
  CredentialProviderContext,
  CredentialProviderFactory,
  CredentialRequest,
  Credentials,
} from './auth/credential-provider.js';

// Exec credential plugins (src/exec).
export {
  ExecCredentialProvider,
  createExecCredentialProviderFactory,
  execCredentialProviderFactory,
  DEFAULT_EXEC_TIMEOUT_MS,
  DEFAULT_EXEC_EXPIRY_LEEWAY_MS,
} from './exec/exec-credential-provider.js';
export type { ExecCredentialProviderOptions } from './exec/exec-credential-provider.js';
export {
  ExecCredentialFileCache,
  EXEC_CREDENTIAL_CACHE_DIR_ENV_VAR,
} from './exec/exec-credential-file-cache.js';
export {
  buildExecCredentialRequest,
  execClusterInfo,
  EXEC_CREDENTIAL_API_VERSIONS,
  EXEC_INFO_ENV_VAR,
} from './exec/build-exec-credential-request.js';
export type { ExecCluster, ExecCredentialRequest } from './exec/build-exec-credential-request.js';
export { parseExecCredential } from './exec/parse-exec-credential.js';
export type { ParsedExecCredential } from './exec/parse-exec-credential.js';
export { ExecPluginError, OidcError } from './errors.js';
export type { ExecPluginErrorCode, OidcErrorCode } from './errors.js';

// The OIDC auth-provider (src/oidc).
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
export { SharedCredentialProviders } from './exec/shared-credential-providers.js';
