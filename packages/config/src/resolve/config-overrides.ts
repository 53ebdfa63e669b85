import { checkString } from '../argument-checks.js';

/**
 * ConfigOverrides are kubectl's global flags, applied over the kubeconfig the way client-go's
 * ConfigOverrides are: names select entries (`--context`, `--cluster`, `--user`), the other
 * fields replace the selected entry's values when set.
 */
export interface ConfigOverrides {
  /** context is `--context`. */
  context?: string | undefined;
  /** cluster is `--cluster`: use this cluster instead of the context's. */
  cluster?: string | undefined;
  /** user is `--user`: use this user instead of the context's. */
  user?: string | undefined;
  /** namespace is `--namespace`; a leading `ns/`, `namespace/` or `namespaces/` is dropped. */
  namespace?: string | undefined;
  /** server is `--server`; it also clears the file's `tls-server-name` unless `tlsServerName` is set. */
  server?: string | undefined;
  tlsServerName?: string | undefined;
  /** insecureSkipTlsVerify `true` clears the file's CA, as `--insecure-skip-tls-verify` does. */
  insecureSkipTlsVerify?: boolean | undefined;
  /** certificateAuthority replaces both the file's CA path and data. */
  certificateAuthority?: string | undefined;
  /** clientCertificate replaces both the file's certificate path and data. */
  clientCertificate?: string | undefined;
  /** clientKey replaces both the file's key path and data. */
  clientKey?: string | undefined;
  token?: string | undefined;
  username?: string | undefined;
  password?: string | undefined;
  /** impersonate is `--as`. */
  impersonate?: string | undefined;
  /** impersonateUid is `--as-uid`. */
  impersonateUid?: string | undefined;
  /** impersonateGroups is `--as-group`, repeated. */
  impersonateGroups?: string[] | undefined;
  /** impersonateUserExtra is `--as-user-extra`. */
  impersonateUserExtra?: Map<string, string[]> | undefined;
  proxyUrl?: string | undefined;
  disableCompression?: boolean | undefined;
  /**
   * requestTimeout is `--request-timeout`: seconds (`"5"`) or a Go duration (`"1m30s"`); `"0"` is
   * none. A value Go cannot parse, a negative one or one past Go's int64 nanoseconds is an
   * `ERR_CONFIG_INVALID` error naming the flag (see `parseTimeout`).
   */
  requestTimeout?: string | undefined;
}

const NAMESPACE_PREFIX = /^(?:ns|namespace|namespaces)\//i;

/** removeNamespacePrefix drops kubectl's accepted `ns/`, `namespace/`, `namespaces/` prefixes. */
export function removeNamespacePrefix(namespace: string): string {
  checkString('removeNamespacePrefix', 'namespace', namespace);
  return namespace.replace(NAMESPACE_PREFIX, '');
}
