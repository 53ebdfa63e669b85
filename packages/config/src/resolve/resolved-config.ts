import type { ExecConfig } from '../model/kubeconfig.js';

/**
 * TlsSettings is how to trust the server and, optionally, which client certificate to present.
 * Each item is given as bytes (`*Data`) or as a path for the transport to read (and re-read when
 * it rotates). When both are set for one item, the bytes win, as in client-go.
 */
export interface TlsSettings {
  caData?: Uint8Array | undefined;
  caFile?: string | undefined;
  certData?: Uint8Array | undefined;
  certFile?: string | undefined;
  keyData?: Uint8Array | undefined;
  keyFile?: string | undefined;
  /** serverName is `tls-server-name`: used for SNI and to verify the server certificate. */
  serverName?: string | undefined;
  /** insecure skips server verification; never combined with a CA (the transport refuses). */
  insecure: boolean;
}

/** NoAuth sends no credential (a client certificate, if any, is in {@link TlsSettings}). */
export interface NoAuth {
  kind: 'none';
}

/**
 * TokenAuth is a bearer token. When `tokenFile` is set the file is authoritative: it is read
 * when the transport starts and re-read as it rotates; `token`, if also set, is only used
 * until then (client-go's precedence).
 */
export interface TokenAuth {
  kind: 'token';
  token?: string | undefined;
  tokenFile?: string | undefined;
}

/** BasicAuth is a username and password. */
export interface BasicAuth {
  kind: 'basic';
  username: string;
  password: string;
}

/**
 * ExecAuth runs a client-go credential plugin. `clusterExtension` is the cluster's
 * `client.authentication.k8s.io/exec` extension, passed to the plugin when it asks for
 * cluster info.
 */
export interface ExecAuth {
  kind: 'exec';
  exec: ExecConfig;
  clusterExtension?: unknown;
}

/**
 * AuthProviderAuth is a kubeconfig `auth-provider` (for example `oidc`). `userName` and
 * `origin` say where refreshed credentials are written back.
 */
export interface AuthProviderAuth {
  kind: 'auth-provider';
  name: string;
  config: Map<string, string>;
  userName: string;
  origin?: string | undefined;
}

/** AuthMethod is the credential the selected user presents, other than a client certificate. */
export type AuthMethod = NoAuth | TokenAuth | BasicAuth | ExecAuth | AuthProviderAuth;

/** Impersonation is the `as*` settings: act as another user. */
export interface Impersonation {
  user: string;
  uid?: string | undefined;
  groups: string[];
  extra: Map<string, string[]>;
}

/**
 * ResolvedConfig is everything needed to talk to one API server, selected and validated from
 * a kubeconfig (or the in-cluster environment). Plain data: no files are read to build it.
 *
 * The objects this package returns print without credentials: `util.inspect`, `console.log`
 * and `JSON.stringify` show `REDACTED` for tokens, passwords, exec env values, auth-provider
 * secrets and URL passwords and `DATA+OMITTED` for certificate and key bytes, while every field
 * holds its real value. Copy one with `structuredClone` or spread, never a JSON round trip
 * (which would copy the markers), and build cache keys from fields, not from `JSON.stringify`.
 * `console.dir` and Node's report of an uncaught exception turn custom inspection off and
 * print the real values: log errors that carry a config with `console.error`.
 */
export interface ResolvedConfig {
  /** server is the API server URL as the cluster gives it (client-go's rest.Config.Host). */
  server: string;
  contextName: string;
  clusterName: string;
  userName: string;
  /** namespace is the context's, the override's, or `default`. */
  namespace: string;
  /** namespaceExplicit is true when the namespace came from an override or the context. */
  namespaceExplicit: boolean;
  tls: TlsSettings;
  auth: AuthMethod;
  impersonation?: Impersonation | undefined;
  proxyUrl?: string | undefined;
  disableCompression: boolean;
  /**
   * timeoutMs is the request timeout from `--request-timeout` (see `parseTimeout`); 0 or absent
   * means none. It is a whole number of milliseconds, exact (a sub-millisecond rest rounds up,
   * so a nonzero timeout is never 0), at most 9 223 372 036 855 (Go's longest duration, so
   * always a safe integer), and may well exceed the 2^31 − 1 ms (about 24.8 days) that one
   * Node.js timer can wait: consumers must not hand it to `setTimeout` unchecked.
   */
  timeoutMs?: number | undefined;
  /** source says where this came from: a kubeconfig, or the pod's service account. */
  source: 'kubeconfig' | 'in-cluster';
}
