export type {
  ClientCertificate,
  CredentialProvider,
  CredentialProviderContext,
  CredentialProviderFactory,
  CredentialRequest,
  Credentials,
} from './auth/credential-provider.js';

// The transport core.
export { createTransport } from './transport/create-transport.js';
export type { TransportOptions } from './transport/create-transport.js';
export { Transport } from './transport/transport.js';
export { apiServerDispatcher } from './transport/api-server-dispatcher.js';
export type {
  ApiServerDispatcher,
  ApiServerDispatcherOptions,
} from './transport/api-server-dispatcher.js';
export type { ServerInfo } from './transport/server-url.js';
export { parseServerUrl } from './transport/server-url.js';
export {
  ConnectionPools,
  sharedConnectionPools,
  poolKey,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
} from './transport/connection-pools.js';
export type { PoolIdentity, PoolLease, PoolSettings } from './transport/connection-pools.js';
export { TransportError } from './errors.js';
export type { KTransportErrorCode, TransportErrorCode } from './errors.js';
export { TRANSPORT_VERSION } from './version.js';

// Credential providers (src/auth).
export { builtinCredentialProviderFactories } from './auth/builtin-credential-provider-factories.js';
export {
  credentialProviderKind,
  selectCredentialProviderFactory,
} from './auth/select-credential-provider-factory.js';
export {
  TokenCredentialProvider,
  TokenCredentialProviderFactory,
} from './auth/token-credential-provider.js';
export type { TokenCredentialProviderOptions } from './auth/token-credential-provider.js';
export {
  CachedTokenFile,
  TOKEN_FILE_REFRESH_INTERVAL_MS,
  TOKEN_FILE_REFRESH_LEEWAY_MS,
} from './auth/cached-token-file.js';
export type { CachedTokenFileOptions } from './auth/cached-token-file.js';
export {
  BasicCredentialProvider,
  BasicCredentialProviderFactory,
} from './auth/basic-credential-provider.js';
export { RemovedAuthProviderFactory } from './auth/removed-auth-provider-factory.js';

// Interceptors (src/interceptors), for building custom stacks.
export { authInterceptor } from './interceptors/auth-interceptor.js';
export { AuthHandler } from './handlers/auth-handler.js';
export { isReplayableBody } from './handlers/is-replayable-body.js';
export type { AuthInterceptorOptions } from './interceptors/auth-interceptor.js';
export { impersonationInterceptor } from './interceptors/impersonation-interceptor.js';
export { impersonationHeaders, escapeExtraKey } from './interceptors/impersonation-headers.js';
export { userAgentInterceptor } from './interceptors/user-agent-interceptor.js';
export { defaultUserAgent } from './interceptors/default-user-agent.js';
export type { UserAgentOptions } from './interceptors/default-user-agent.js';
export { compressionInterceptor } from './interceptors/compression-interceptor.js';
export { GzipDecodingHandler } from './handlers/gzip-decoding-handler.js';

// TLS and proxies (src/tls, src/proxy).
export { loadTlsOptions } from './tls/load-tls-options.js';
export type { TlsOptions } from './tls/load-tls-options.js';
export { ClientCertificateFiles } from './tls/client-certificate-files.js';
export { ServerConnector } from './tls/server-connector.js';
export { NoProxy, proxyForServer, parseProxyUrl } from './proxy/proxy-for-server.js';

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
export { SharedCredentialProviders } from './auth/shared-credential-providers.js';
export type { SharedCredentialProviderRequest } from './auth/shared-credential-providers.js';

// User interceptors at named positions of the transport stack (issue 12, item 6); their DI
// token, TRANSPORT_INTERCEPTOR, is in @k/transport/di.
export {
  TRANSPORT_INTERCEPTOR_POSITIONS,
  TRANSPORT_INTERCEPTOR_PRIORITIES,
  TRANSPORT_BUILTIN_INTERCEPTOR_NAMES,
} from './transport/transport-interceptor.js';
export type {
  TransportInterceptor,
  TransportInterceptorPosition,
  TransportInterceptorPriority,
  TransportBuiltinInterceptorName,
} from './transport/transport-interceptor.js';
export type { TransportStackEntry } from './transport/resolve-transport-stack.js';
export { describeTransportStack } from './transport/describe-transport-stack.js';
