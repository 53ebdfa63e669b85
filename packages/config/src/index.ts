// @k/config: load, resolve and infer the configuration a client connects with. Secondary
// surfaces have their own subpaths: `@k/config/loading` (kubectl's loading rules piece by piece),
// `@k/config/view` (`kubectl config view`), `@k/config/edit` (write changes back to the files),
// `@k/config/errors` (the error classes alone) and `@k/config/yaml-guards`.

// Errors.
export {
  KubeError,
  KubeconfigError,
  InClusterConfigError,
  ConfigInferenceError,
  ConfigArgumentError,
} from './errors.js';
export type { InClusterConfigErrorCode, KConfigErrorCode, KubeconfigErrorCode } from './errors.js';

// The kubeconfig document model.
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

// Loading, resolving, inferring.
export { loadKubeconfig } from './load/load-kubeconfig.js';
export type { LoadKubeconfigOptions, LoadedKubeconfig } from './load/load-kubeconfig.js';
export type { ConfigOverrides } from './resolve/config-overrides.js';
export { resolveConfig } from './resolve/resolve-config.js';
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
export { loadInClusterConfig } from './in-cluster/load-in-cluster-config.js';
export type { InClusterOptions } from './in-cluster/load-in-cluster-config.js';
export { inferConfig } from './infer-config.js';
export type { InferConfigOptions } from './infer-config.js';
