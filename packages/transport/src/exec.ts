// @k/transport/exec: the exec credential plugin (client-go's `exec` auth), piece by piece.
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
