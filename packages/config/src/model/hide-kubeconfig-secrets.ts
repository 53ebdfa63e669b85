import type { LoadedKubeconfig } from '../load/load-kubeconfig.js';
import {
  defineDataView,
  defineExecViews,
  defineProviderViews,
  defineRedactedView,
  redactAuthProvider,
  redactData,
  redactExec,
  redactSecret,
  redactUrl,
} from '../view/redacted-view.js';
import type { AuthInfo, Cluster, Kubeconfig } from './kubeconfig.js';
import type { KubeconfigFile } from './parse-kubeconfig.js';

/**
 * hideKubeconfigSecrets makes a Kubeconfig print without its credentials: `util.inspect` and
 * `console.log` of the config or of any part holding a credential, and `JSON.stringify` of the
 * config, a cluster, a user or an auth-provider, show `REDACTED` for tokens, passwords, exec env
 * values, auth-provider secrets and URL passwords, and `DATA+OMITTED` for certificate and key
 * bytes (kubectl's markers). The data itself is not touched: the printers are non-enumerable
 * properties (see `defineRedactedView`). Changes `config` in place and returns it.
 */
export function hideKubeconfigSecrets(config: Kubeconfig): Kubeconfig {
  for (const cluster of config.clusters.values()) defineRedactedView(cluster, redactCluster);
  for (const user of config.users.values()) hideAuthInfoSecrets(user);
  return defineRedactedView(config, redactKubeconfigView);
}

/** hideLoadedKubeconfigSecrets does {@link hideKubeconfigSecrets} for a load result and its files. */
export function hideLoadedKubeconfigSecrets(loaded: LoadedKubeconfig): LoadedKubeconfig {
  hideKubeconfigSecrets(loaded.config);
  for (const file of loaded.files) hideKubeconfigFileSecrets(file);
  return defineRedactedView(loaded, (value) => ({
    config: redactKubeconfigView(value.config),
    origins: value.origins,
    files: value.files.map(redactFile),
    precedence: value.precedence,
  }));
}

/** hideKubeconfigFileSecrets does {@link hideKubeconfigSecrets} for one file; its YAML is not shown. */
export function hideKubeconfigFileSecrets(file: KubeconfigFile): KubeconfigFile {
  hideKubeconfigSecrets(file.config);
  return defineRedactedView(file, redactFile);
}

function hideAuthInfoSecrets(user: AuthInfo): void {
  if (user.exec) defineExecViews(user.exec);
  if (user.authProvider) defineProviderViews(user.authProvider);
  defineDataView(user.clientKeyData);
  defineRedactedView(user, redactAuthInfo);
}

// Reading `document` of a fast-path file would parse it; the document holds every secret anyway.
function redactFile(file: KubeconfigFile): unknown {
  return {
    path: file.path,
    config: redactKubeconfigView(file.config),
    document: '[YAML document]',
  };
}

function redactKubeconfigView(config: Kubeconfig): unknown {
  return {
    ...config,
    clusters: new Map(
      [...config.clusters].map(([name, cluster]) => [name, redactCluster(cluster)]),
    ),
    users: new Map([...config.users].map(([name, user]) => [name, redactAuthInfo(user)])),
  };
}

function redactCluster(cluster: Cluster): unknown {
  const view: Record<string, unknown> = { ...cluster };
  if ('server' in cluster) view.server = redactUrl(cluster.server);
  if ('proxyUrl' in cluster) view.proxyUrl = redactUrl(cluster.proxyUrl);
  if ('certificateAuthorityData' in cluster)
    view.certificateAuthorityData = redactData(cluster.certificateAuthorityData);
  return view;
}

function redactAuthInfo(user: AuthInfo): unknown {
  const view: Record<string, unknown> = { ...user };
  if ('token' in user) view.token = redactSecret(user.token);
  if ('password' in user) view.password = redactSecret(user.password);
  if ('clientKeyData' in user) view.clientKeyData = redactData(user.clientKeyData);
  if ('clientCertificateData' in user)
    view.clientCertificateData = redactData(user.clientCertificateData);
  if (user.authProvider) view.authProvider = redactAuthProvider(user.authProvider);
  if (user.exec) view.exec = redactExec(user.exec);
  return view;
}
