export { CREDENTIAL_PROVIDER_FACTORY } from './tokens.js';
export type {
  ClientCertificate,
  CredentialProvider,
  CredentialProviderContext,
  CredentialProviderFactory,
  CredentialRequest,
  Credentials,
} from './auth/credential-provider.js';
