// @k/transport/auth: the built-in token and basic plugins, and how a plugin is selected, for
// code that composes or replaces them (`createTransport` uses them by itself).
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
export { SharedCredentialProviders } from './auth/shared-credential-providers.js';
export type { SharedCredentialProviderRequest } from './auth/shared-credential-providers.js';
