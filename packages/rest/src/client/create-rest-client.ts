import type { ResolvedConfig } from '@k/config';
import { createTransport, type TransportOptions } from '@k/transport';
import { describeValue } from '../describe-value.js';
import { RestConfigurationError } from '../errors.js';
import { ownDispatcher, RestClient } from './rest-client.js';
import { resolveRestClientOptions, type RestClientOptions } from './rest-client-options.js';

/** CreateRestClientOptions configure {@link createRestClient}: the client's, plus its transport's. */
export interface CreateRestClientOptions extends RestClientOptions {
  /** transport options for `createTransport` (user agent, pools, auth plugins, interceptors). */
  transport?: TransportOptions | undefined;
}

/**
 * withKubeconfigPersister gives an auth-provider user read from a kubeconfig file (OIDC) a
 * persister that writes refreshed tokens back to that file, as client-go's clientcmd does, unless
 * the caller chose one; other options are returned as they are. @k/config's writer loads on the
 * first refresh, not before. `createRestClient` applies it; DI wiring above it does too.
 */
export function withKubeconfigPersister(
  config: ResolvedConfig,
  options: TransportOptions,
): TransportOptions {
  const auth = config.auth as { kind?: string; origin?: unknown } | undefined;
  if (
    options.persistAuthProviderConfig !== undefined ||
    auth?.kind !== 'auth-provider' ||
    typeof auth.origin !== 'string' ||
    auth.origin === ''
  ) {
    return options;
  }
  return {
    ...options,
    persistAuthProviderConfig: async (entries) => {
      const { authProviderPersisterFor } = await import('@k/config/edit');
      await authProviderPersisterFor(config)?.(entries);
    },
  };
}

/**
 * createRestClient builds a {@link RestClient} for a resolved configuration: a @k/transport
 * `Transport` (TLS, auth, impersonation, proxy, user agent), a new token bucket and retry policy,
 * the configuration's request timeout and namespace, and — for an OIDC (auth-provider) user from
 * a kubeconfig file — a persister that writes refreshed tokens back to it. Derive clients for other API groups
 * with `withGroupVersion` so they share the bucket. The client owns the transport it made:
 * `await client.close()` closes it.
 */
export function createRestClient(
  config: ResolvedConfig,
  options: CreateRestClientOptions = {},
): RestClient {
  if (typeof config !== 'object' || config === null) {
    throw new RestConfigurationError(
      `createRestClient needs a resolved configuration (from @k/config's resolveConfig or inferConfig), got ${describeValue(config)}`,
    );
  }
  if (typeof options !== 'object' || options === null) {
    throw new RestConfigurationError(
      `createRestClient options must be an object, got ${describeValue(options)}`,
    );
  }
  const { transport: transportOptions = {}, ...clientOptions } = options;
  // Resolved first: bad options fail before a transport (and its credential plugin) exists.
  const resolved = resolveRestClientOptions(clientOptions, config);
  const transport = createTransport(config, withKubeconfigPersister(config, transportOptions));
  ownDispatcher(transport);
  return new RestClient(transport, resolved);
}
