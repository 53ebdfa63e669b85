import type { ResolvedConfig } from '@k/config';

/** ClientCertificate is a PEM certificate chain and its PEM private key. */
export interface ClientCertificate {
  certificate: string;
  key: string;
}

/**
 * Credentials are what a provider hands out for requests: an `Authorization` header value,
 * a client certificate for new TLS connections, or both, and when they stop being valid.
 */
export interface Credentials {
  /** authorization is the whole header value, e.g. `Bearer abc` or `Basic dXNlcjpwYXNz`. */
  authorization?: string | undefined;
  /** clientCertificate is presented on TLS connections opened after these credentials were issued. */
  clientCertificate?: ClientCertificate | undefined;
  /** expiresAt is when the credentials stop being valid; absent means until rejected. */
  expiresAt?: Date | undefined;
}

/** CredentialRequest is the per-call context of {@link CredentialProvider.getCredentials}. */
export interface CredentialRequest {
  signal?: AbortSignal | undefined;
}

/**
 * CredentialProvider supplies the credentials of one user for one cluster.
 *
 * Contract: `getCredentials` may be called concurrently by many requests; it caches what it
 * obtained until it expires, and runs at most one refresh at a time (single flight), so a
 * hundred concurrent first requests cause one plugin run or one token request. Errors it
 * throws are typed `KubeError`s and never contain the credential.
 */
export interface CredentialProvider {
  /** kind names the factory that made this provider (e.g. `token`, `exec`, `oidc`). */
  readonly kind: string;
  getCredentials(request?: CredentialRequest): Promise<Credentials>;
  /**
   * invalidate is called when the server answered 401 to a request sent with `rejected`. The
   * provider drops them if they are still its current ones and returns whether fresh
   * credentials may succeed; if so the transport replays a replayable request once.
   */
  invalidate?(rejected: Credentials): boolean | Promise<boolean>;
  /** close releases timers, watchers and child processes. */
  close?(): void | Promise<void>;
}

/**
 * CredentialProviderContext is what a factory gets to build a provider: the resolved
 * configuration (the selected user's `auth` settings, the cluster for exec plugins that ask
 * for cluster info) and the transport's shared services.
 */
export interface CredentialProviderContext {
  config: ResolvedConfig;
  /** now returns the current time in milliseconds; tests substitute a fake clock. */
  now: () => number;
  /**
   * persistAuthProviderConfig writes refreshed auth-provider settings (e.g. OIDC tokens) back
   * where they came from: the transport's option of that name, injected by whoever loaded the
   * configuration (@k/config's `authProviderPersisterFor(config)` for a kubeconfig file), as
   * client-go's clientcmd injects `AuthConfigPersister`. Absent: nothing is written back.
   */
  persistAuthProviderConfig?: ((config: Map<string, string>) => Promise<void>) | undefined;
}

/**
 * CredentialProviderFactory builds providers of one `kind`. Kinds: `token`, `basic`, `exec`
 * for those kubeconfig methods, and for `auth-provider` users the provider's `name` (`oidc`, or a
 * custom plugin's name). Factories are multi-registered under `CREDENTIAL_PROVIDER_FACTORY`;
 * two with the same kind are an error.
 */
export interface CredentialProviderFactory {
  readonly kind: string;
  create(context: CredentialProviderContext): CredentialProvider;
}
