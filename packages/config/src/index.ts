export {
  KubeError,
  KubeconfigError,
  InClusterConfigError,
  ConfigInferenceError,
  ConfigArgumentError,
} from './errors.js';
export type {
  ErrorClass,
  InClusterConfigErrorCode,
  KConfigErrorCode,
  KubeconfigErrorCode,
} from './errors.js';
export { emptyKubeconfig } from './model/kubeconfig.js';
export type {
  AuthInfo,
  AuthProviderConfig,
  Cluster,
  Context,
  ExecConfig,
  ExecEnvVar,
  ExecInteractiveMode,
  Extensions,
  Kubeconfig,
  Preferences,
} from './model/kubeconfig.js';
export { parseKubeconfig } from './model/parse-kubeconfig.js';
export type { KubeconfigFile } from './model/parse-kubeconfig.js';
export { loadingPrecedence, KUBECONFIG_ENV_VAR } from './load/loading-rules.js';
export type { LoadingPrecedence, LoadingRulesOptions } from './load/loading-rules.js';
export { mergeKubeconfigs } from './load/merge-kubeconfigs.js';
export type { EntryOrigins, MergedKubeconfig } from './load/merge-kubeconfigs.js';
export { resolveLocalPaths } from './load/resolve-local-paths.js';
export { loadKubeconfig } from './load/load-kubeconfig.js';
export type { LoadKubeconfigOptions, LoadedKubeconfig } from './load/load-kubeconfig.js';
export type { ConfigOverrides } from './resolve/config-overrides.js';
export { removeNamespacePrefix } from './resolve/config-overrides.js';
export { parseTimeout } from './resolve/parse-timeout.js';
export {
  resolveConfig,
  cleanInstallHint,
  EXEC_CLUSTER_EXTENSION,
} from './resolve/resolve-config.js';
export type {
  AuthMethod,
  AuthProviderAuth,
  BasicAuth,
  ExecAuth,
  Impersonation,
  NoAuth,
  ResolvedConfig,
  TlsSettings,
  TokenAuth,
} from './resolve/resolved-config.js';
export { proxyUrlProblem } from './resolve/validate-selection.js';
export {
  loadInClusterConfig,
  isInClusterPossible,
  joinHostPort,
  SERVICE_ACCOUNT_DIRECTORY,
} from './in-cluster/load-in-cluster-config.js';
export type { InClusterOptions } from './in-cluster/load-in-cluster-config.js';
export { inferConfig } from './infer-config.js';
export type { InferConfigOptions } from './infer-config.js';
export { encodeKubeconfig } from './view/encode-kubeconfig.js';
export type { JsonObject } from './view/encode-kubeconfig.js';
export { formatKubeconfig } from './view/format-kubeconfig.js';
export type { KubeconfigOutputFormat } from './view/format-kubeconfig.js';
export { redactKubeconfig, DATA_OMITTED, REDACTED } from './view/redact-kubeconfig.js';
export { minifyKubeconfig } from './view/minify-kubeconfig.js';
export { flattenKubeconfig } from './view/flatten-kubeconfig.js';
export type { FlattenKubeconfigOptions } from './view/flatten-kubeconfig.js';
export {
  modifyKubeconfig,
  setCurrentContext,
  setContext,
  updateUser,
  updateAuthProviderConfig,
} from './write/modify-kubeconfig.js';
export type {
  ContextChanges,
  ModifyKubeconfigOptions,
  ModifyKubeconfigResult,
} from './write/modify-kubeconfig.js';
export { defaultKubeconfigFile } from './write/default-kubeconfig-file.js';

// Writing refreshed auth-provider settings back (handed to @k/transport's persistAuthProviderConfig).
export { authProviderPersisterFor } from './write/auth-provider-persister.js';
export type { AuthProviderPersister } from './write/auth-provider-persister.js';
