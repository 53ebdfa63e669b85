export {
  KubeError,
  KubeconfigError,
  InClusterConfigError,
  ConfigInferenceError,
} from './errors.js';
export type { KubeconfigErrorCode, InClusterConfigErrorCode } from './errors.js';
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
