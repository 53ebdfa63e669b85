import {
  checkFields,
  checkKubeconfig,
  checkLoadedKubeconfig,
  checkObject,
  checkString,
  optional,
  OVERRIDE_FIELDS,
} from '../argument-checks.js';

import { KubeconfigError } from '../errors.js';
import type { AuthInfo, Cluster, Context, Kubeconfig } from '../model/kubeconfig.js';
import type { LoadedKubeconfig } from '../load/load-kubeconfig.js';
import type { ConfigOverrides } from './config-overrides.js';
import { removeNamespacePrefix } from './config-overrides.js';
import { hideResolvedConfigSecrets } from './hide-resolved-config-secrets.js';
import { parseTimeout } from './parse-timeout.js';
import type { AuthMethod, Impersonation, ResolvedConfig, TlsSettings } from './resolved-config.js';
import { EMPTY_CLUSTER_MESSAGE, validateAuthInfo, validateCluster } from './validate-selection.js';

/** The cluster extension whose value is handed to exec plugins that ask for cluster info. */
const EXEC_CLUSTER_EXTENSION = 'client.authentication.k8s.io/exec';

/**
 * resolveConfig selects the context, cluster and user (overrides first, then
 * `current-context`), applies the overrides as kubectl's global flags do, validates the
 * selection with client-go's rules and returns a plain {@link ResolvedConfig}.
 *
 * As in client-go, credentials and server TLS settings are only used for an `https://`
 * server: for `http://` or a scheme-less server nothing secret is sent. Impersonation, proxy
 * and compression apply to every server.
 *
 * Throws a {@link KubeconfigError}: `ERR_CONFIG_NOT_FOUND` for an explicitly requested
 * name that does not exist, `ERR_CONFIG_EMPTY` when nothing is configured, and
 * `ERR_CONFIG_INVALID` listing every problem (in `problems`) otherwise.
 */
export function resolveConfig(
  source: Kubeconfig | LoadedKubeconfig,
  overrides: ConfigOverrides = {},
): ResolvedConfig {
  checkObject('resolveConfig', 'source', source, 'a Kubeconfig or the result of loadKubeconfig');
  if ('origins' in source) checkLoadedKubeconfig('resolveConfig', 'source', source);
  else checkKubeconfig('resolveConfig', 'source', source);
  checkFields('resolveConfig', 'overrides', overrides, OVERRIDE_FIELDS);
  const config = 'origins' in source ? source.config : source;
  const origins = 'origins' in source ? source.origins : undefined;

  if (overrides.user && !config.users.has(overrides.user)) {
    throw notFound(`auth info "${overrides.user}" does not exist`, overrides.user);
  }
  if (overrides.context && !config.contexts.has(overrides.context)) {
    throw notFound(`context "${overrides.context}" does not exist`, overrides.context);
  }
  if (overrides.cluster && !config.clusters.has(overrides.cluster)) {
    throw notFound(`cluster "${overrides.cluster}" does not exist`, overrides.cluster);
  }

  const contextName = overrides.context || config.currentContext;
  const fileContext: Context | undefined = config.contexts.get(contextName);
  const clusterName = overrides.cluster || fileContext?.cluster || '';
  const userName = overrides.user || fileContext?.user || '';
  const cluster = mergeCluster(config.clusters.get(clusterName), overrides);
  const user = mergeAuthInfo(config.users.get(userName), overrides);
  const clusterExists = config.clusters.has(clusterName) || hasClusterOverride(overrides);

  const problems: string[] = [];
  if (contextName && !fileContext) {
    problems.push(`context was not found for specified context: ${contextName}`);
  }
  problems.push(...validateAuthInfo(userName, user));
  problems.push(...validateCluster(clusterName, cluster, clusterExists));
  if (problems.length === 1 && problems[0] === EMPTY_CLUSTER_MESSAGE) {
    throw new KubeconfigError(
      'ERR_CONFIG_EMPTY',
      'invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable',
    );
  }
  if (problems.length > 0) {
    const unique = [...new Set(problems)];
    const summary = unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
    throw new KubeconfigError('ERR_CONFIG_INVALID', `invalid configuration: ${summary}`, {
      entry: contextName || undefined,
      problems: unique,
    });
  }

  const server = cleanServer(cluster.server ?? '');
  const secure = /^https:\/\//i.test(server);
  const namespaceOverride = overrides.namespace ? removeNamespacePrefix(overrides.namespace) : '';
  const resolved: ResolvedConfig = {
    server,
    contextName,
    clusterName,
    userName,
    namespace: namespaceOverride || fileContext?.namespace || 'default',
    namespaceExplicit: Boolean(namespaceOverride || fileContext?.namespace),
    tls: secure ? tlsSettings(cluster, user) : { insecure: false },
    auth: secure
      ? authMethod(user, userName, cluster, origins?.users.get(userName))
      : { kind: 'none' },
    disableCompression: cluster.disableCompression ?? false,
    source: 'kubeconfig',
  };
  const impersonation = impersonationOf(user);
  if (impersonation) resolved.impersonation = impersonation;
  if (cluster.proxyUrl) resolved.proxyUrl = cluster.proxyUrl;
  if (overrides.requestTimeout) resolved.timeoutMs = parseTimeout(overrides.requestTimeout);
  return hideResolvedConfigSecrets(resolved);
}

function notFound(message: string, entry: string): KubeconfigError {
  return new KubeconfigError('ERR_CONFIG_NOT_FOUND', message, { entry });
}

function hasClusterOverride(overrides: ConfigOverrides): boolean {
  return Boolean(
    overrides.server ||
    overrides.tlsServerName ||
    overrides.insecureSkipTlsVerify ||
    overrides.certificateAuthority ||
    overrides.proxyUrl ||
    overrides.disableCompression,
  );
}

/** mergeCluster applies cluster overrides with client-go's special cases for CA and SNI. */
function mergeCluster(fileCluster: Cluster | undefined, overrides: ConfigOverrides): Cluster {
  const cluster: Cluster = { ...fileCluster };
  if (overrides.server) cluster.server = overrides.server;
  if (overrides.proxyUrl) cluster.proxyUrl = overrides.proxyUrl;
  if (overrides.disableCompression) cluster.disableCompression = true;
  // An explicit trust choice replaces the file's whole trust setting (CA path, data, insecure).
  if (overrides.insecureSkipTlsVerify || overrides.certificateAuthority) {
    cluster.insecureSkipTlsVerify = overrides.insecureSkipTlsVerify ?? false;
    delete cluster.certificateAuthorityData;
    if (overrides.certificateAuthority)
      cluster.certificateAuthority = overrides.certificateAuthority;
    else delete cluster.certificateAuthority;
  }
  // --server alone clears the file's tls-server-name: it was chosen for the file's server.
  if (overrides.tlsServerName || overrides.server) {
    if (overrides.tlsServerName) cluster.tlsServerName = overrides.tlsServerName;
    else delete cluster.tlsServerName;
  }
  return cluster;
}

/** mergeAuthInfo applies user overrides; a certificate or key override replaces path and data. */
function mergeAuthInfo(fileUser: AuthInfo | undefined, overrides: ConfigOverrides): AuthInfo {
  const user: AuthInfo = { ...fileUser };
  if (overrides.clientCertificate) {
    user.clientCertificate = overrides.clientCertificate;
    delete user.clientCertificateData;
  }
  if (overrides.clientKey) {
    user.clientKey = overrides.clientKey;
    delete user.clientKeyData;
  }
  if (overrides.token) user.token = overrides.token;
  if (overrides.username) user.username = overrides.username;
  if (overrides.password) user.password = overrides.password;
  if (overrides.impersonate) user.impersonate = overrides.impersonate;
  if (overrides.impersonateUid) user.impersonateUid = overrides.impersonateUid;
  if (overrides.impersonateGroups?.length)
    user.impersonateGroups = [...overrides.impersonateGroups];
  if (overrides.impersonateUserExtra?.size) {
    user.impersonateUserExtra = new Map([
      ...(user.impersonateUserExtra ?? []),
      ...overrides.impersonateUserExtra,
    ]);
  }
  return user;
}

function tlsSettings(cluster: Cluster, user: AuthInfo): TlsSettings {
  const tls: TlsSettings = { insecure: cluster.insecureSkipTlsVerify ?? false };
  if (cluster.certificateAuthorityData) tls.caData = cluster.certificateAuthorityData;
  if (cluster.certificateAuthority) tls.caFile = cluster.certificateAuthority;
  if (cluster.tlsServerName) tls.serverName = cluster.tlsServerName;
  if (user.clientCertificateData) tls.certData = user.clientCertificateData;
  if (user.clientCertificate) tls.certFile = user.clientCertificate;
  if (user.clientKeyData) tls.keyData = user.clientKeyData;
  if (user.clientKey) tls.keyFile = user.clientKey;
  return tls;
}

function authMethod(
  user: AuthInfo,
  userName: string,
  cluster: Cluster,
  origin: string | undefined,
): AuthMethod {
  if (user.token || user.tokenFile) {
    const auth: AuthMethod = { kind: 'token' };
    if (user.token) auth.token = user.token;
    if (user.tokenFile) auth.tokenFile = user.tokenFile;
    return auth;
  }
  if (user.username || user.password) {
    return { kind: 'basic', username: user.username ?? '', password: user.password ?? '' };
  }
  if (user.exec) {
    return {
      kind: 'exec',
      exec: { ...user.exec, installHint: cleanInstallHint(user.exec.installHint) },
      clusterExtension: cluster.extensions?.get(EXEC_CLUSTER_EXTENSION),
    };
  }
  if (user.authProvider) {
    const auth: AuthMethod = {
      kind: 'auth-provider',
      name: user.authProvider.name,
      config: new Map(user.authProvider.config),
      userName,
    };
    if (origin) auth.origin = origin;
    return auth;
  }
  return { kind: 'none' };
}

function impersonationOf(user: AuthInfo): Impersonation | undefined {
  if (!user.impersonate) return undefined;
  const impersonation: Impersonation = {
    user: user.impersonate,
    groups: [...(user.impersonateGroups ?? [])],
    extra: new Map(user.impersonateUserExtra ?? []),
  };
  if (user.impersonateUid) impersonation.uid = user.impersonateUid;
  return impersonation;
}

/**
 * cleanServer strips a query and fragment from a server URL that has a path, as client-go
 * does; anything else (including scheme-less `host:port`) is kept verbatim.
 */
function cleanServer(server: string): string {
  try {
    const url = new URL(server);
    if (url.pathname.length > 1 && /^[a-z][a-z0-9+.-]*:\/\//i.test(server)) {
      return server.replace(/[?#].*$/, '');
    }
  } catch {
    // Not a URL: kept as written.
  }
  return server;
}

/**
 * cleanInstallHint replaces control characters (ANSI escapes included) with their `U+XXXX`
 * form, keeping tab and line breaks, so a plugin's hint cannot drive the user's terminal.
 */
export function cleanInstallHint(hint: string | undefined): string | undefined {
  optional(checkString)('cleanInstallHint', 'hint', hint);
  if (hint === undefined) return undefined;
  return hint.replace(/[\p{Cc}\p{Cf}]/gu, (character) =>
    '\t\n\v\f\r'.includes(character)
      ? character
      : `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`,
  );
}
