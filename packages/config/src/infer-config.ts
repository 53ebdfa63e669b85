import { checkFields, IN_CLUSTER_FIELDS, LOAD_FIELDS, OVERRIDE_FIELDS } from './argument-checks.js';

import { ConfigInferenceError, KubeError } from './errors.js';
import type { InClusterOptions } from './in-cluster/load-in-cluster-config.js';
import { isInClusterPossible, loadInClusterConfig } from './in-cluster/load-in-cluster-config.js';
import type { LoadKubeconfigOptions } from './load/load-kubeconfig.js';
import { loadKubeconfig } from './load/load-kubeconfig.js';
import type { ConfigOverrides } from './resolve/config-overrides.js';
import { removeNamespacePrefix } from './resolve/config-overrides.js';
import { hideResolvedConfigSecrets } from './resolve/hide-resolved-config-secrets.js';
import { resolveConfig } from './resolve/resolve-config.js';
import type { ResolvedConfig } from './resolve/resolved-config.js';

/** InferConfigOptions combine the kubeconfig loading rules, overrides and in-cluster inputs. */
export interface InferConfigOptions extends LoadKubeconfigOptions {
  overrides?: ConfigOverrides | undefined;
  inCluster?: InClusterOptions | undefined;
}

/**
 * inferConfig finds the configuration the way kubectl and client-go's deferred loader do: the
 * kubeconfig chain first; when it configures nothing (`ERR_CONFIG_EMPTY`) and the process
 * runs in a pod, the in-cluster configuration (honouring the `server`, `token` and
 * `certificateAuthority` overrides, as client-go does). Any other kubeconfig error is thrown
 * as it is. When neither source works the {@link ConfigInferenceError} keeps both causes.
 */
export async function inferConfig(options: InferConfigOptions = {}): Promise<ResolvedConfig> {
  checkFields('inferConfig', 'options', options, {
    ...LOAD_FIELDS,
    overrides: (fn, at, value) => checkFields(fn, at, value, OVERRIDE_FIELDS),
    inCluster: (fn, at, value) => checkFields(fn, at, value, IN_CLUSTER_FIELDS),
  });
  let kubeconfigError: unknown;
  try {
    const loaded = await loadKubeconfig(options);
    return resolveConfig(loaded, options.overrides);
  } catch (error) {
    if (!(KubeError.isInstance(error) && error.code === 'ERR_CONFIG_EMPTY')) throw error;
    kubeconfigError = error;
  }
  // inCluster.env passed as undefined is unset: the environment of `options` applies.
  const inClusterOptions = { ...options.inCluster, env: options.inCluster?.env ?? options.env };
  if (!(await isInClusterPossible(inClusterOptions))) {
    let inClusterError: unknown;
    try {
      await loadInClusterConfig(inClusterOptions);
    } catch (error) {
      inClusterError = error;
    }
    throw new ConfigInferenceError(kubeconfigError, inClusterError ?? 'no service account token');
  }
  const config = await loadInClusterConfig(inClusterOptions);
  return applyInClusterOverrides(config, options.overrides ?? {});
}

function applyInClusterOverrides(
  config: ResolvedConfig,
  overrides: ConfigOverrides,
): ResolvedConfig {
  const result = { ...config, tls: { ...config.tls } };
  if (overrides.server) result.server = overrides.server;
  if (overrides.token) result.auth = { kind: 'token', token: overrides.token };
  if (overrides.certificateAuthority) result.tls.caFile = overrides.certificateAuthority;
  if (overrides.namespace) {
    result.namespace = removeNamespacePrefix(overrides.namespace);
    result.namespaceExplicit = true;
  }
  return hideResolvedConfigSecrets(result);
}
