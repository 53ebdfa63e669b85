import { readFile } from 'node:fs/promises';
import type { AuthProviderAuth, ResolvedConfig } from '@k/config';
import type { Dispatcher } from 'undici';
import { Agent, EnvHttpProxyAgent } from '../transport/undici-parts.js';
import type {
  CredentialProvider,
  CredentialProviderContext,
  CredentialProviderFactory,
  CredentialRequest,
  Credentials,
} from '../auth/credential-provider.js';
import {
  expectAuthKind,
  expectCredentialRequest,
  expectDuration,
  expectFactoryContext,
  expectOptionalBytes,
  expectOptionalFunction,
  expectOptions,
  expectResolvedConfig,
  expectString,
  invalidArgument,
  isRecord,
} from '../checks/argument-checks.js';
import { OidcError } from '../errors.js';
import { SharedCredentialProviders } from '../auth/shared-credential-providers.js';
import { waitWithSignal } from '../auth/wait-with-signal.js';
import { idTokenExpiry, isIdTokenValid } from './id-token-expiry.js';
import { refreshIdToken } from './refresh-id-token.js';

/** The auth-provider config keys the OIDC provider reads (client-go's names). */
export const OIDC_CONFIG_KEYS = {
  issuerUrl: 'idp-issuer-url',
  clientId: 'client-id',
  clientSecret: 'client-secret',
  idToken: 'id-token',
  refreshToken: 'refresh-token',
  certificateAuthority: 'idp-certificate-authority',
  certificateAuthorityData: 'idp-certificate-authority-data',
  extraScopes: 'extra-scopes',
} as const;

/** OidcCredentialProviderOptions tune the OIDC provider; every field is optional. */
export interface OidcCredentialProviderOptions {
  /**
   * persist writes the refreshed config back. The factory's default: the context's
   * `persistAuthProviderConfig` (the transport's option of that name; @k/config's
   * `authProviderPersisterFor(config)` writes into the kubeconfig file the user came from).
   * Without either, refreshed tokens live in memory only (client-go's no-op persister).
   */
  persist?: ((config: Map<string, string>) => Promise<void>) | undefined;
  /** dispatcher sends discovery and token requests (default: an undici agent with the IdP CA). */
  dispatcher?: Dispatcher | undefined;
  /**
   * requestTimeoutMs bounds each request to the identity provider (default 30 000); 0, and
   * anything longer than a Node timer holds (2^31-1 ms, ~24.8 days), means no timeout.
   */
  requestTimeoutMs?: number | undefined;
}

/**
 * OidcCredentialProvider is client-go's `oidc` auth-provider: it sends the kubeconfig's
 * `id-token` as a bearer token while `now + 10s < exp` (JWT payload decoded, signature not
 * checked) and otherwise refreshes it with the `refresh-token` at the token endpoint discovered
 * from `idp-issuer-url`, trusting `idp-certificate-authority(-data)` when set (only it, as
 * client-go) and honouring `HTTPS_PROXY`/`NO_PROXY` (never for loopback).
 *
 * Contract: concurrent callers share one refresh (single flight). The new id-token (and a new
 * refresh token, when the server sent a different one) is persisted first — with
 * `options.persist`, when given — and only then used; when persisting fails the
 * call fails with `ERR_TRANSPORT_OIDC_PERSIST` and the in-memory config is unchanged (client-go). As in
 * client-go a 401 does not refresh: `invalidate` returns false. Errors are `OidcError`s and never
 * hold a token or the client secret. `close()` releases the dispatcher it created.
 */
export class OidcCredentialProvider implements CredentialProvider {
  readonly kind = 'oidc';
  readonly issuer: string;
  readonly #clientId: string;
  readonly #now: () => number;
  readonly #persist: ((config: Map<string, string>) => Promise<void>) | undefined;
  readonly #requestTimeoutMs: number;
  readonly #ownsDispatcher: boolean;
  readonly #caData: Buffer | undefined;
  readonly #caFile: string | undefined;
  readonly #closing = new AbortController();
  #dispatcher: Dispatcher | undefined;
  #config: Map<string, string>;
  #credentials: { idToken: string; credentials: Credentials } | undefined;
  #refreshing: Promise<Credentials> | undefined;
  #refreshes = 0;

  /**
   * Throws `ERR_TRANSPORT_OIDC_CONFIG` when `idp-issuer-url` or `client-id` is missing or
   * `idp-certificate-authority-data` is not base64, as client-go does when it builds the
   * transport, and a `TransportError` `ERR_TRANSPORT_INVALID_ARGUMENT` for arguments of the
   * wrong shape.
   */
  constructor(
    config: ResolvedConfig,
    options: OidcCredentialProviderOptions = {},
    now: () => number = Date.now,
  ) {
    const where = 'OidcCredentialProvider';
    checkOidcConfig(config, where, 'config');
    checkOidcOptions(options, where);
    expectOptionalFunction(now, where, 'now');
    const auth = config.auth as AuthProviderAuth;
    const settings = auth.config;
    const user = `oidc auth-provider of user ${JSON.stringify(auth.userName)}`;
    const issuer = settings.get(OIDC_CONFIG_KEYS.issuerUrl);
    if (!issuer)
      throw new OidcError('ERR_TRANSPORT_OIDC_CONFIG', `${user}: must provide idp-issuer-url`);
    const clientId = settings.get(OIDC_CONFIG_KEYS.clientId);
    if (!clientId) {
      throw new OidcError(
        'ERR_TRANSPORT_OIDC_CONFIG',
        `oidc issuer ${issuer}: must provide client-id`,
        {
          issuer,
        },
      );
    }
    const caData = settings.get(OIDC_CONFIG_KEYS.certificateAuthorityData);
    if (caData) {
      const compact = caData.replace(/\s+/g, '');
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0) {
        throw new OidcError(
          'ERR_TRANSPORT_OIDC_CONFIG',
          `oidc issuer ${issuer}: idp-certificate-authority-data is not valid base64`,
          { issuer },
        );
      }
      this.#caData = Buffer.from(compact, 'base64');
    }
    this.#caFile = settings.get(OIDC_CONFIG_KEYS.certificateAuthority) || undefined;
    this.issuer = issuer;
    this.#clientId = clientId;
    this.#config = new Map(settings);
    this.#now = now;
    this.#persist = options.persist;
    this.#requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.#dispatcher = options.dispatcher;
    this.#ownsDispatcher = options.dispatcher === undefined;
  }

  /** config is a copy of the current auth-provider config (with refreshed tokens). */
  get config(): Map<string, string> {
    return new Map(this.#config);
  }

  /** refreshes counts the token refreshes this provider completed. */
  get refreshes(): number {
    return this.#refreshes;
  }

  async getCredentials(request: CredentialRequest = {}): Promise<Credentials> {
    expectCredentialRequest(request, 'OidcCredentialProvider.getCredentials');
    if (this.#closing.signal.aborted) throw this.#closedError();
    const idToken = this.#config.get(OIDC_CONFIG_KEYS.idToken);
    if (idToken && isIdTokenValid(idToken, this.#now(), this.issuer)) {
      return this.#credentialsFor(idToken);
    }
    if (!this.#config.get(OIDC_CONFIG_KEYS.refreshToken)) {
      throw new OidcError(
        'ERR_TRANSPORT_OIDC_NO_REFRESH_TOKEN',
        `oidc issuer ${this.issuer}: no valid id-token, and cannot refresh without refresh-token`,
        { issuer: this.issuer },
      );
    }
    this.#refreshing ??= this.#refresh().finally(() => {
      this.#refreshing = undefined;
    });
    return waitWithSignal(this.#refreshing, request.signal);
  }

  /** invalidate never asks for a replay: client-go does not refresh an OIDC token on a 401. */
  invalidate(): boolean {
    return false;
  }

  /** close aborts a refresh in flight and closes the dispatcher this provider created. */
  async close(): Promise<void> {
    this.#closing.abort();
    const dispatcher = this.#dispatcher;
    this.#dispatcher = undefined;
    if (dispatcher && this.#ownsDispatcher) await dispatcher.close().catch(() => {});
  }

  #credentialsFor(idToken: string): Credentials {
    if (this.#credentials?.idToken !== idToken) {
      const expiry = idTokenExpiry(idToken, this.issuer);
      this.#credentials = {
        idToken,
        credentials: { authorization: `Bearer ${idToken}`, expiresAt: new Date(expiry * 1000) },
      };
    }
    return this.#credentials.credentials;
  }

  async #refresh(): Promise<Credentials> {
    const refreshToken = this.#config.get(OIDC_CONFIG_KEYS.refreshToken) ?? '';
    const refreshed = await refreshIdToken({
      issuer: this.issuer,
      clientId: this.#clientId,
      clientSecret: this.#config.get(OIDC_CONFIG_KEYS.clientSecret) ?? '',
      refreshToken,
      dispatcher: await this.#getDispatcher(),
      timeoutMs: this.#requestTimeoutMs,
      signal: this.#closing.signal,
    });
    if (!/^[\t\x20-\x7e]+$/.test(refreshed.idToken)) {
      throw new OidcError(
        'ERR_TRANSPORT_OIDC_REFRESH',
        `oidc issuer ${this.issuer}: the token endpoint returned an id_token that is not a valid header value`,
        { issuer: this.issuer },
      );
    }
    const next = new Map(this.#config);
    if (refreshed.refreshToken && refreshed.refreshToken !== refreshToken) {
      next.set(OIDC_CONFIG_KEYS.refreshToken, refreshed.refreshToken);
    }
    next.set(OIDC_CONFIG_KEYS.idToken, refreshed.idToken);
    if (this.#persist) {
      try {
        await this.#persist(new Map(next));
      } catch (error) {
        throw new OidcError(
          'ERR_TRANSPORT_OIDC_PERSIST',
          `oidc issuer ${this.issuer}: could not persist new tokens: ${error instanceof Error ? error.message : String(error)}`,
          { issuer: this.issuer, cause: error },
        );
      }
    }
    if (this.#closing.signal.aborted) throw this.#closedError();
    this.#config = next;
    this.#refreshes++;
    return this.#credentialsFor(refreshed.idToken);
  }

  async #getDispatcher(): Promise<Dispatcher> {
    if (this.#dispatcher) return this.#dispatcher;
    let ca = this.#caData;
    if (!ca?.length && this.#caFile) {
      try {
        ca = await readFile(this.#caFile);
      } catch (error) {
        throw new OidcError(
          'ERR_TRANSPORT_OIDC_CONFIG',
          `oidc issuer ${this.issuer}: reading idp-certificate-authority: ${(error as Error).message}`,
          { issuer: this.issuer, cause: error },
        );
      }
    }
    if (this.#closing.signal.aborted) throw this.#closedError();
    this.#dispatcher ??= createIdentityProviderDispatcher(this.issuer, ca);
    return this.#dispatcher;
  }

  #closedError(): OidcError {
    return new OidcError(
      'ERR_TRANSPORT_OIDC_CLOSED',
      `oidc issuer ${this.issuer}: provider was closed`,
      {
        issuer: this.issuer,
      },
    );
  }
}

/**
 * createIdentityProviderDispatcher returns the undici dispatcher for requests to an OpenID
 * provider: TLS trusting only `ca` when given (system roots otherwise), TLS 1.2 at least, and
 * `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` from the environment, loopback never proxied (Go's
 * `ProxyFromEnvironment`).
 */
export function createIdentityProviderDispatcher(issuer: string, ca?: Buffer): Dispatcher {
  expectString(issuer, 'createIdentityProviderDispatcher', 'issuer');
  expectOptionalBytes(ca, 'createIdentityProviderDispatcher', 'ca');
  const tls = { ...(ca?.length ? { ca } : {}), minVersion: 'TLSv1.2' as const };
  const environment = process.env;
  const proxied = Boolean(
    environment.https_proxy ??
    environment.HTTPS_PROXY ??
    environment.http_proxy ??
    environment.HTTP_PROXY,
  );
  let loopback = false;
  try {
    const host = new URL(issuer).hostname.replace(/^\[|\]$/g, '');
    loopback = host === 'localhost' || host === '::1' || /^127\./.test(host);
  } catch {
    // An unparseable issuer fails at the request with undici's own error.
  }
  // HTTP/1.1 as to the API server (ADR 0012); undici 8 would otherwise offer h2.
  if (!proxied || loopback) return new Agent({ connect: tls, allowH2: false });
  const noProxy = [environment.no_proxy ?? environment.NO_PROXY, 'localhost', '127.0.0.1', '::1']
    .filter(Boolean)
    .join(',');
  return new EnvHttpProxyAgent({ connect: tls, requestTls: tls, noProxy, allowH2: false });
}

/**
 * createOidcCredentialProviderFactory returns the `oidc` factory. Refreshed tokens are persisted
 * with `options.persist`, else the context's `persistAuthProviderConfig`, else not at all (they
 * live in memory, as with client-go's no-op persister). Providers for the same
 * cluster, issuer, client id and kubeconfig user (and clock) are shared while any handle is
 * open, as client-go caches OIDC providers (client-go keys by cluster, issuer and client id
 * only; the user is added here so two users never share tokens). `create` throws
 * `ERR_TRANSPORT_OIDC_CONFIG` for an incomplete config.
 */
export function createOidcCredentialProviderFactory(
  options: OidcCredentialProviderOptions = {},
): CredentialProviderFactory {
  checkOidcOptions(options, 'createOidcCredentialProviderFactory');
  const shared = new SharedCredentialProviders();
  return {
    kind: 'oidc',
    create(context: CredentialProviderContext): CredentialProvider {
      const where = 'oidcCredentialProviderFactory.create';
      expectFactoryContext(context, where);
      checkOidcConfig(context.config, where, 'context.config');
      const config = context.config;
      const auth = config.auth as AuthProviderAuth;
      const persist = options.persist ?? context.persistAuthProviderConfig;
      // Validate the config even when a shared provider exists.
      const probe = new OidcCredentialProvider(
        config,
        { ...options, ...(persist ? { persist } : {}) },
        context.now,
      );
      const issuer = probe.issuer;
      return shared.acquire({
        now: context.now,
        key: JSON.stringify([
          config.server,
          issuer,
          auth.config.get(OIDC_CONFIG_KEYS.clientId),
          auth.userName,
          auth.origin ?? null,
        ]),
        create: () => probe,
        closedError: () =>
          new OidcError('ERR_TRANSPORT_OIDC_CLOSED', `oidc issuer ${issuer}: provider was closed`, {
            issuer,
          }),
      });
    },
  };
}

/** oidcCredentialProviderFactory is the default `oidc` factory (process-wide sharing). */
export const oidcCredentialProviderFactory: CredentialProviderFactory =
  createOidcCredentialProviderFactory();

/** checkOidcConfig checks a resolved config whose user has an auth-provider. */
function checkOidcConfig(config: unknown, where: string, what: string): void {
  expectResolvedConfig(config, where, what);
  expectAuthKind(config, 'auth-provider', where, what);
  const auth = config.auth as Record<string, unknown>;
  if (!(auth.config instanceof Map)) {
    throw invalidArgument(
      where,
      `${what}.auth.config`,
      'a Map of the auth-provider settings',
      auth.config,
    );
  }
}

/** checkOidcOptions checks {@link OidcCredentialProviderOptions}. */
function checkOidcOptions(options: unknown, where: string): void {
  const checked = expectOptions(options, where) as Record<string, unknown>;
  expectOptionalFunction(checked.persist, where, 'options.persist');
  if (
    checked.dispatcher !== undefined &&
    !(isRecord(checked.dispatcher) && typeof checked.dispatcher.dispatch === 'function')
  ) {
    throw invalidArgument(
      where,
      'options.dispatcher',
      'an undici Dispatcher or undefined',
      checked.dispatcher,
    );
  }
  expectDuration(checked.requestTimeoutMs, where, 'options.requestTimeoutMs', 0);
}
