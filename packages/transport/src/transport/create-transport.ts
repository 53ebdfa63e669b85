import type { ResolvedConfig } from '@k/config';
import { builtinCredentialProviderFactories } from '../auth/builtin-credential-provider-factories.js';
import type {
  CredentialProvider,
  CredentialProviderContext,
  CredentialProviderFactory,
} from '../auth/credential-provider.js';
import { selectCredentialProviderFactory } from '../auth/select-credential-provider-factory.js';
import {
  expectDuration,
  expectOptionalBoolean,
  expectFactories,
  expectOptionalFunction,
  expectOptionalInteger,
  expectOptionalString,
  expectOptions,
  expectRecord,
  expectResolvedConfig,
  invalidArgument,
  isRecord,
} from '../checks/argument-checks.js';
import { authInterceptor } from '../interceptors/auth-interceptor.js';
import { compressionInterceptor } from '../interceptors/compression-interceptor.js';
import { impersonationInterceptor } from '../interceptors/impersonation-interceptor.js';
import { defaultUserAgent } from '../interceptors/default-user-agent.js';
import { userAgentInterceptor } from '../interceptors/user-agent-interceptor.js';
import { proxyForServer } from '../proxy/proxy-for-server.js';
import { loadTlsOptions } from '../tls/load-tls-options.js';
import {
  sharedConnectionPools,
  type ConnectionPools,
  type PoolSettings,
} from './connection-pools.js';
import { PoolRouter } from './pool-router.js';
import { checkTransportInterceptors, resolveTransportStack } from './resolve-transport-stack.js';
import { parseServerUrl } from './server-url.js';
import type { TransportInterceptor } from './transport-interceptor.js';
import { Transport } from './transport.js';

/** TransportOptions tune {@link createTransport}; every field is optional. */
export interface TransportOptions extends PoolSettings {
  /**
   * credentialProviderFactories are your auth plugins, selected by `kind` beside the built-in
   * ones (token, basic, exec, oidc); a kind may be there once (a second is an error). With DI,
   * `registerTransport` passes everything registered under `CREDENTIAL_PROVIDER_FACTORY`.
   */
  credentialProviderFactories?: readonly CredentialProviderFactory[] | undefined;
  /**
   * builtinCredentialProviders `false` leaves out {@link builtinCredentialProviderFactories}, so
   * your plugins are the only ones (e.g. to replace the exec or oidc plugin). Default `true`.
   */
  builtinCredentialProviders?: boolean | undefined;
  /** userAgent replaces the default `k/<version> (<os>/<arch>)` user agent. */
  userAgent?: string | undefined;
  /** appName is appended to the default user agent. */
  appName?: string | undefined;
  /** environment is where `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` are read (default `process.env`). */
  environment?: NodeJS.ProcessEnv | undefined;
  /** connectionPools is the pool cache (default: the process-wide {@link sharedConnectionPools}). */
  connectionPools?: ConnectionPools | undefined;
  /** now is the clock handed to credential providers (default `Date.now`). */
  now?: (() => number) | undefined;
  /**
   * persistAuthProviderConfig is handed to auth-provider plugins that refresh tokens (OIDC), to
   * write them back. @k/transport writes no files: pass @k/config's
   * `authProviderPersisterFor(config)` to keep refreshed tokens in the kubeconfig file the user
   * came from (client-go's clientcmd does the same). Default: none, tokens live in memory.
   */
  persistAuthProviderConfig?: CredentialProviderContext['persistAuthProviderConfig'];
  /** clientCertificateReloadIntervalMs is how often rotating cert/key files may be re-read (1 s). */
  clientCertificateReloadIntervalMs?: number | undefined;
  /**
   * interceptors are user interceptors placed at their named positions of the stack (see
   * {@link TransportInterceptor}; the resolved order is `transport.stack`). Names are unique and
   * not those of built-in layers. With DI, `registerTransport` adds everything registered under
   * `TRANSPORT_INTERCEPTOR` after these. Default: none (the stack is the built-ins alone).
   */
  interceptors?: readonly TransportInterceptor[] | undefined;
}

/**
 * createTransport builds the {@link Transport} for a resolved configuration: it loads and
 * validates the TLS material (CA, client certificate, server name, insecure), parses the server
 * URL, picks the proxy (`proxy-url`, else the environment), selects and creates the user's
 * credential provider, and composes the interceptor stack — the built-in layers and
 * `options.interceptors` at their named positions, in the order `transport.stack` lists — over a
 * connection pool shared by every transport with the same TLS identity. Synchronous (files are read once, here), so it works as a
 * DI factory. Throws a `TransportError` (or the provider factory's error) for bad settings.
 *
 * The caller owns the transport and closes it.
 */
export function createTransport(
  resolved: ResolvedConfig,
  options: TransportOptions = {},
): Transport {
  checkArguments(resolved, options);
  const tls = loadTlsOptions(
    resolved.tls,
    options.clientCertificateReloadIntervalMs === undefined
      ? {}
      : { reloadIntervalMs: options.clientCertificateReloadIntervalMs },
  );
  const hasTls = Boolean(
    tls.ca || tls.clientCertificate || tls.clientCertificateFiles || tls.insecure,
  );
  const server = parseServerUrl(resolved.server, hasTls);
  const proxy = proxyForServer(server.url, resolved.proxyUrl, options.environment ?? process.env);

  const factory = selectCredentialProviderFactory(resolved.auth, [
    ...(options.builtinCredentialProviders === false ? [] : builtinCredentialProviderFactories()),
    ...(options.credentialProviderFactories ?? []),
  ]);
  const context: CredentialProviderContext = { config: resolved, now: options.now ?? Date.now };
  if (options.persistAuthProviderConfig) {
    context.persistAuthProviderConfig = options.persistAuthProviderConfig;
  }
  const provider: CredentialProvider | undefined = factory?.create(context);

  const settings: PoolSettings = {};
  if (options.keepAliveTimeoutMs !== undefined)
    settings.keepAliveTimeoutMs = options.keepAliveTimeoutMs;
  if (options.maxConnections !== undefined) settings.maxConnections = options.maxConnections;
  if (options.connectTimeoutMs !== undefined) settings.connectTimeoutMs = options.connectTimeoutMs;
  const router = new PoolRouter(options.connectionPools ?? sharedConnectionPools, {
    origin: server.origin,
    tls,
    ...(proxy ? { proxy } : {}),
    disableCompression: resolved.disableCompression,
    settings,
  });

  // THE interceptor stack, outermost first (client-go's wrapping order, HTTPWrappersForConfig),
  // with the named positions of user interceptors (TransportInterceptorPosition):
  //   [request] → impersonation → user agent → [decorated] → auth (credentials, 401 →
  //   invalidate → one replay) → compression (Accept-Encoding: gzip, decoding) → [wire] → pool.
  // Impersonation and the user agent only add headers; auth sits below them so a replay resends
  // the same decorated request; compression is innermost so auth sees decoded 401 bodies.
  const stack = resolveTransportStack(
    [
      { position: 'request' },
      resolved.impersonation
        ? { name: 'impersonation', interceptor: impersonationInterceptor(resolved.impersonation) }
        : undefined,
      {
        name: 'user-agent',
        interceptor: userAgentInterceptor(
          defaultUserAgent({
            ...(options.userAgent ? { userAgent: options.userAgent } : {}),
            ...(options.appName ? { appName: options.appName } : {}),
          }),
        ),
      },
      { position: 'decorated' },
      provider
        ? {
            name: 'auth',
            interceptor: authInterceptor({
              provider,
              onClientCertificate: (certificate) => router.useClientCertificate(certificate),
            }),
          }
        : undefined,
      resolved.disableCompression
        ? undefined
        : { name: 'compression', interceptor: compressionInterceptor() },
      { position: 'wire' },
      { name: 'pool' },
    ],
    options.interceptors ?? [],
  );
  // undici's compose wraps from the first interceptor outwards, so pass them innermost first.
  const composed = router.compose([...stack.interceptors].reverse());
  const dispatch = composed.dispatch.bind(composed);

  return new Transport({
    server,
    defaultNamespace: resolved.namespace,
    dispatch,
    release: () => router.close(),
    credentialProvider: provider,
    stack: stack.entries,
  });
}

/** checkArguments checks createTransport's arguments (for plain JavaScript callers). */
function checkArguments(resolved: unknown, options: unknown): void {
  const where = 'createTransport';
  expectResolvedConfig(resolved, where, 'resolved');
  const checked = expectOptions(options, where) as Record<string, unknown>;
  if (checked.credentialProviderFactories !== undefined) {
    expectFactories(
      checked.credentialProviderFactories,
      where,
      'options.credentialProviderFactories',
    );
  }
  expectOptionalBoolean(
    checked.builtinCredentialProviders,
    where,
    'options.builtinCredentialProviders',
  );
  expectOptionalString(checked.userAgent, where, 'options.userAgent');
  expectOptionalString(checked.appName, where, 'options.appName');
  if (checked.environment !== undefined) {
    expectRecord(checked.environment, where, 'options.environment', 'an object (like process.env)');
  }
  if (
    checked.connectionPools !== undefined &&
    !(isRecord(checked.connectionPools) && typeof checked.connectionPools.acquire === 'function')
  ) {
    throw invalidArgument(
      where,
      'options.connectionPools',
      'a ConnectionPools or undefined',
      checked.connectionPools,
    );
  }
  expectOptionalFunction(checked.now, where, 'options.now');
  expectOptionalFunction(
    checked.persistAuthProviderConfig,
    where,
    'options.persistAuthProviderConfig',
  );
  for (const name of [
    'clientCertificateReloadIntervalMs',
    'keepAliveTimeoutMs',
    'connectTimeoutMs',
  ] as const) {
    expectDuration(checked[name], where, `options.${name}`, 0);
  }
  expectOptionalInteger(checked.maxConnections, where, 'options.maxConnections', 1);
  checkTransportInterceptors(checked.interceptors, where, 'options.interceptors');
}
