import { checkString } from '../argument-checks.js';

/**
 * ConfigOverrides are kubectl's global flags, applied over the kubeconfig the way client-go's
 * ConfigOverrides are: names select entries (`--context`, `--cluster`, `--user`), the other
 * fields replace the selected entry's values when set.
 */
export interface ConfigOverrides {
  /** context is `--context`. */
  context?: string;
  /** cluster is `--cluster`: use this cluster instead of the context's. */
  cluster?: string;
  /** user is `--user`: use this user instead of the context's. */
  user?: string;
  /** namespace is `--namespace`; a leading `ns/`, `namespace/` or `namespaces/` is dropped. */
  namespace?: string;
  /** server is `--server`; it also clears the file's `tls-server-name` unless `tlsServerName` is set. */
  server?: string;
  tlsServerName?: string;
  /** insecureSkipTlsVerify `true` clears the file's CA, as `--insecure-skip-tls-verify` does. */
  insecureSkipTlsVerify?: boolean;
  /** certificateAuthority replaces both the file's CA path and data. */
  certificateAuthority?: string;
  /** clientCertificate replaces both the file's certificate path and data. */
  clientCertificate?: string;
  /** clientKey replaces both the file's key path and data. */
  clientKey?: string;
  token?: string;
  username?: string;
  password?: string;
  /** impersonate is `--as`. */
  impersonate?: string;
  /** impersonateUid is `--as-uid`. */
  impersonateUid?: string;
  /** impersonateGroups is `--as-group`, repeated. */
  impersonateGroups?: string[];
  /** impersonateUserExtra is `--as-user-extra`. */
  impersonateUserExtra?: Map<string, string[]>;
  proxyUrl?: string;
  disableCompression?: boolean;
  /**
   * requestTimeout is `--request-timeout`: seconds (`"5"`) or a Go duration (`"1m30s"`); `"0"` is
   * none. A value Go cannot parse, a negative one or one past Go's int64 nanoseconds is an
   * `ERR_CONFIG_INVALID` error naming the flag (see `parseTimeout`).
   */
  requestTimeout?: string;
}

const NAMESPACE_PREFIX = /^(?:ns|namespace|namespaces)\//i;

/** removeNamespacePrefix drops kubectl's accepted `ns/`, `namespace/`, `namespaces/` prefixes. */
export function removeNamespacePrefix(namespace: string): string {
  checkString('removeNamespacePrefix', 'namespace', namespace);
  return namespace.replace(NAMESPACE_PREFIX, '');
}
