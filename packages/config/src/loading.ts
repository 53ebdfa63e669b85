// @k/config/loading: kubectl's loading rules piece by piece, for tools that show or reproduce
// them (`loadKubeconfig` and `inferConfig` in the root apply them all).
export { loadingPrecedence, KUBECONFIG_ENV_VAR } from './load/loading-rules.js';
export type { LoadingPrecedence, LoadingRulesOptions } from './load/loading-rules.js';
export { mergeKubeconfigs } from './load/merge-kubeconfigs.js';
export type { EntryOrigins, MergedKubeconfig } from './load/merge-kubeconfigs.js';
export { resolveLocalPaths } from './load/resolve-local-paths.js';
export { removeNamespacePrefix } from './resolve/config-overrides.js';
export { parseTimeout } from './resolve/parse-timeout.js';
export {
  isInClusterPossible,
  SERVICE_ACCOUNT_DIRECTORY,
} from './in-cluster/load-in-cluster-config.js';
