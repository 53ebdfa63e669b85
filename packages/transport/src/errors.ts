import { KubeError } from '@k/config/errors';

// ---------------------------------------------------------------------------------------------
// The transport core: TLS, credential provider selection, proxies, the dispatcher.
// ---------------------------------------------------------------------------------------------

/** The stable codes of {@link TransportError}. */
export type TransportErrorCode =
  /** The server URL cannot be used (`host must be a URL or a host:port pair`). */
  | 'ERR_TRANSPORT_SERVER_URL'
  /** A CA, client certificate or key is not valid PEM, or the TLS settings contradict each other. */
  | 'ERR_TRANSPORT_TLS'
  /** A CA, client certificate, key or token file could not be read. */
  | 'ERR_TRANSPORT_FILE_READ'
  /** Two credential provider factories have the same kind. */
  | 'ERR_TRANSPORT_CREDENTIAL_PROVIDER_DUPLICATE'
  /** No credential provider factory has the kind the selected user needs. */
  | 'ERR_TRANSPORT_CREDENTIAL_PROVIDER_NOT_FOUND'
  /** The user names an auth-provider that client-go removed (`gcp`, `azure`). */
  | 'ERR_TRANSPORT_AUTH_PROVIDER_REMOVED'
  /** The credential provider failed to supply credentials for a request. */
  | 'ERR_TRANSPORT_CREDENTIALS'
  /** The proxy URL is invalid, or the proxy refused or failed the tunnel. */
  | 'ERR_TRANSPORT_PROXY'
  /** A request was sent to another origin than the transport's server. */
  | 'ERR_TRANSPORT_ORIGIN'
  /** The transport was closed. */
  | 'ERR_TRANSPORT_CLOSED'
  /** A public function or constructor was called with a missing or wrong-typed argument. */
  | 'ERR_TRANSPORT_INVALID_ARGUMENT'
  /** Two user interceptors have the same name, or one has the name of a built-in layer. */
  | 'ERR_TRANSPORT_INTERCEPTOR_DUPLICATE'
  /** The runtime cannot give undici's dispatchers (Bun's own `undici` without undici's files). */
  | 'ERR_TRANSPORT_UNSUPPORTED_RUNTIME';

/**
 * TransportError is thrown (or fails a request) for every problem of the transport core: the
 * server URL, TLS material, credential provider selection, credentials, proxies. `path` names the
 * file that failed to read, when one did. Messages name the failing thing and never hold a
 * credential, a private key or a proxy password.
 */
export class TransportError extends KubeError {
  static override readonly brand: symbol = Symbol.for('@k/transport.TransportError');
  declare readonly code: TransportErrorCode;
  readonly path: string | undefined;

  constructor(
    code: TransportErrorCode,
    message: string,
    options: { path?: string | undefined; cause?: unknown } = {},
  ) {
    super(code, message, { cause: options.cause });
    this.path = options.path;
  }
}

// ---------------------------------------------------------------------------------------------
// Exec credential plugins and the OIDC auth-provider (src/exec, src/oidc).
// ---------------------------------------------------------------------------------------------

/** The stable codes of {@link ExecPluginError}. */
export type ExecPluginErrorCode =
  /** `apiVersion` is not `client.authentication.k8s.io/v1` or `…/v1beta1`. */
  | 'ERR_TRANSPORT_EXEC_INVALID_API_VERSION'
  /** `interactiveMode` is unknown, or `Always` while standard input is not a usable terminal. */
  | 'ERR_TRANSPORT_EXEC_INTERACTIVE_MODE'
  /** The cluster info for `provideClusterInfo` could not be built (CA file unreadable). */
  | 'ERR_TRANSPORT_EXEC_CLUSTER_INFO'
  /** The command was not found (the message carries the install hint, rate-limited). */
  | 'ERR_TRANSPORT_EXEC_NOT_FOUND'
  /** The plugin exited with a non-zero code or was killed by a signal. */
  | 'ERR_TRANSPORT_EXEC_FAILED'
  /** The plugin did not finish within the timeout; its process tree was killed. */
  | 'ERR_TRANSPORT_EXEC_TIMEOUT'
  /** The plugin could not be started for another reason (permissions, bad interpreter, …). */
  | 'ERR_TRANSPORT_EXEC_RUN'
  /** The plugin's stdout is not a valid ExecCredential (client-go's validation messages). */
  | 'ERR_TRANSPORT_EXEC_INVALID_OUTPUT'
  /** The provider was closed. */
  | 'ERR_TRANSPORT_EXEC_CLOSED';

/**
 * ExecPluginError is thrown by the exec credential provider. `command` is the plugin as
 * configured; `exitCode`/`signal` say how it ended (when it ran); `stderrTail` is the end of what
 * it wrote to stderr with anything that looks like a credential replaced by `[redacted]` (see
 * the README). Neither the message nor any field ever holds a credential the plugin returned.
 */
export class ExecPluginError extends KubeError {
  static override readonly brand: symbol = Symbol.for('@k/transport.ExecPluginError');
  declare readonly code: ExecPluginErrorCode;
  readonly command: string;
  readonly exitCode: number | undefined;
  readonly signal: string | undefined;
  readonly stderrTail: string;

  constructor(
    code: ExecPluginErrorCode,
    message: string,
    options: {
      command: string;
      exitCode?: number | undefined;
      signal?: string | undefined;
      stderrTail?: string | undefined;
      cause?: unknown;
    },
  ) {
    super(code, message, { cause: options.cause });
    this.command = options.command;
    this.exitCode = options.exitCode;
    this.signal = options.signal;
    this.stderrTail = options.stderrTail ?? '';
  }
}

/** The stable codes of {@link OidcError}. */
export type OidcErrorCode =
  /** The auth-provider config is incomplete or invalid (issuer, client id, IdP CA). */
  | 'ERR_TRANSPORT_OIDC_CONFIG'
  /** The id-token is not a JWT or its claims cannot be parsed. */
  | 'ERR_TRANSPORT_OIDC_INVALID_ID_TOKEN'
  /** The id-token is missing or expired and there is no refresh token. */
  | 'ERR_TRANSPORT_OIDC_NO_REFRESH_TOKEN'
  /** The issuer's discovery document could not be fetched or lacks a token endpoint. */
  | 'ERR_TRANSPORT_OIDC_DISCOVERY'
  /** The token endpoint refused the refresh or answered without an id_token. */
  | 'ERR_TRANSPORT_OIDC_REFRESH'
  /** The refreshed tokens could not be written back to the kubeconfig; they were not used. */
  | 'ERR_TRANSPORT_OIDC_PERSIST'
  /** The provider was closed. */
  | 'ERR_TRANSPORT_OIDC_CLOSED';

/**
 * OidcError is thrown by the OIDC auth-provider. `issuer` names the identity provider. Messages
 * and fields never hold an id-token, a refresh token or the client secret.
 */
export class OidcError extends KubeError {
  static override readonly brand: symbol = Symbol.for('@k/transport.OidcError');
  declare readonly code: OidcErrorCode;
  readonly issuer: string | undefined;
  /** status is the HTTP status of the failed discovery or token request, when there was one. */
  readonly status: number | undefined;

  constructor(
    code: OidcErrorCode,
    message: string,
    options: { issuer?: string | undefined; status?: number | undefined; cause?: unknown } = {},
  ) {
    super(code, message, { cause: options.cause });
    this.issuer = options.issuer;
    this.status = options.status;
  }
}

/** KTransportErrorCode is every code an error of @k/transport can have. */
export type KTransportErrorCode = TransportErrorCode | ExecPluginErrorCode | OidcErrorCode;
