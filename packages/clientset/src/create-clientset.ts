import type { ConfigOverrides, ResolvedConfig } from '@k/config';
import type { RegisterRestOptions } from '@k/rest';
import type { CredentialProviderFactory, RegisterTransportOptions } from '@k/transport';
import type * as TsyringeModule from 'tsyringe';
import type { DependencyContainer } from 'tsyringe';
import type { Clientset } from './clientset.js';
import { DiskDiscoveryCache, type DiscoveryCache } from './discovery/discovery-cache.js';
import { ClientsetError } from './errors.js';
import { registerClientset } from './register.js';
import { CLIENTSET } from './tokens.js';
import {
  anyOf,
  ARRAY,
  BOOLEAN,
  DISCOVERY_CACHE,
  FUNCTION,
  isPlainObject,
  NON_EMPTY_STRING,
  NON_NEGATIVE_INTEGER,
  NON_NEGATIVE_NUMBER,
  OBJECT,
  oneOf,
  PLAIN_OBJECT,
  withMethods,
  type ArgumentRule,
} from './validation/argument-rules.js';
import { checkOptions, type OptionRules } from './validation/check-arguments.js';

const CONFIG: ArgumentRule = {
  expected: 'a ResolvedConfig from @k/config',
  test: (value) => isPlainObject(value) && typeof value.server === 'string',
};

/** The rules of {@link CreateClientsetOptions}; the parts' own options are checked where they are used. */
const CREATE_CLIENTSET_OPTIONS: OptionRules = {
  rules: {
    config: CONFIG,
    kubeconfig: NON_EMPTY_STRING,
    context: NON_EMPTY_STRING,
    overrides: PLAIN_OBJECT,
    inCluster: BOOLEAN,
    qps: NON_NEGATIVE_NUMBER,
    burst: NON_NEGATIVE_INTEGER,
    throttle: anyOf(oneOf('off'), OBJECT),
    retry: OBJECT,
    client: OBJECT,
    transport: OBJECT,
    credentialProviderFactories: ARRAY,
    discoveryCache: {
      expected: 'a DiscoveryCache or { directory, ttlMs }',
      test: (value) => DISCOVERY_CACHE.test(value) || isPlainObject(value),
    },
    container: withMethods('a tsyringe DependencyContainer', 'createChildContainer'),
    configure: FUNCTION,
  },
};

/** CreateClientsetOptions configure {@link createClientset}; everything is optional. */
export interface CreateClientsetOptions {
  /** config is used as it is; nothing is loaded. */
  config?: ResolvedConfig;
  /** kubeconfig is `--kubeconfig`: load only this file. */
  kubeconfig?: string;
  /** context is `--context`. */
  context?: string;
  /** overrides are kubectl's other global flags (`--namespace`, `--server`, `--as`, …). */
  overrides?: ConfigOverrides;
  /**
   * inCluster: `true` uses only the pod's service account, `false` only kubeconfig files, unset
   * infers like kubectl (kubeconfig, else in-cluster).
   */
  inCluster?: boolean;
  /** qps is the shared token bucket's rate; with it, `burst` is required (client-go's rule). */
  qps?: number;
  burst?: number;
  /** throttle replaces qps/burst: token bucket settings, `'off'` or a limiter. */
  throttle?: RegisterRestOptions['throttle'];
  /** retry is the retry policy (or its options) of every request. */
  retry?: RegisterRestOptions['retry'];
  /** client configures the `RestClient` (timeouts, warning handler, retry events). */
  client?: RegisterRestOptions['client'];
  /** transport configures @k/transport (user agent, proxy environment, pools). */
  transport?: Omit<RegisterTransportOptions, 'config'>;
  /** credentialProviderFactories are custom auth plugins, registered under `CREDENTIAL_PROVIDER_FACTORY`. */
  credentialProviderFactories?: readonly CredentialProviderFactory[];
  /** discoveryCache: a cache, or `{ directory?, ttlMs? }` for a `DiskDiscoveryCache` (default: memory). */
  discoveryCache?: DiscoveryCache | { directory?: string; ttlMs?: number };
  /** container is the parent of the clientset's child container (default: tsyringe's root container). */
  container?: DependencyContainer;
  /** configure runs after every default registration: register any token again to override it. */
  configure?: (container: DependencyContainer) => void;
}

type Tsyringe = typeof TsyringeModule;

const INSTALL_HINT =
  'createClientset needs the optional peer dependencies tsyringe and reflect-metadata (npm install tsyringe reflect-metadata); without DI use new Clientset(createRestClient(config))';

/**
 * loadTsyringe imports tsyringe on first use only, so importing @k/clientset never loads it. When
 * the application has not loaded a `Reflect.getMetadata` polyfill, reflect-metadata is imported
 * first (tsyringe refuses to load without one); an application that calls `createClientset` has
 * chosen DI, and nothing else in @k/clientset needs the polyfill.
 */
async function loadTsyringe(): Promise<Tsyringe> {
  try {
    if (typeof (Reflect as { getMetadata?: unknown }).getMetadata !== 'function') {
      await import('reflect-metadata');
    }
    return await import('tsyringe');
  } catch (error) {
    throw new ClientsetError('ERR_DI_UNAVAILABLE', INSTALL_HINT, { cause: error });
  }
}

async function loadConfig(options: CreateClientsetOptions): Promise<ResolvedConfig> {
  if (options.config) return options.config;
  const { inferConfig, loadInClusterConfig, loadKubeconfig, resolveConfig } =
    await import('@k/config');
  const overrides: ConfigOverrides = {
    ...options.overrides,
    ...(options.context !== undefined ? { context: options.context } : {}),
  };
  if (options.inCluster === true) return loadInClusterConfig();
  const loading = options.kubeconfig !== undefined ? { explicitPath: options.kubeconfig } : {};
  if (options.inCluster === false) return resolveConfig(await loadKubeconfig(loading), overrides);
  return inferConfig({ ...loading, overrides });
}

function throttleOption(options: CreateClientsetOptions): RegisterRestOptions['throttle'] {
  if (options.throttle !== undefined) return options.throttle;
  if (options.qps === undefined && options.burst === undefined) return undefined;
  if (
    options.qps !== undefined &&
    options.qps > 0 &&
    !(options.burst !== undefined && options.burst > 0)
  ) {
    throw new ClientsetError(
      'ERR_CONFIGURATION',
      'burst is required to be greater than 0 when RateLimiter is not set and QPS is set to greater than 0',
    );
  }
  return {
    ...(options.qps !== undefined ? { qps: options.qps } : {}),
    ...(options.burst !== undefined ? { burst: options.burst } : {}),
  };
}

function discoveryCacheOption(options: CreateClientsetOptions): DiscoveryCache | undefined {
  const cache = options.discoveryCache;
  if (cache === undefined) return undefined;
  return DISCOVERY_CACHE.test(cache)
    ? (cache as DiscoveryCache)
    : new DiskDiscoveryCache(cache as { directory?: string; ttlMs?: number });
}

/**
 * createClientset composes the layers with tsyringe and returns the clientset: it resolves the
 * configuration (config → transport → rest → clientset: kubeconfig or in-cluster, as kubectl
 * does), creates a child container of `options.container` (default tsyringe's root container,
 * which is left untouched), registers @k/transport (plus `credentialProviderFactories`), @k/rest
 * (one token bucket, `qps`/`burst` with client-go's rules, `retry`) and @k/clientset into it,
 * lets `configure` override any token, and resolves `CLIENTSET`. tsyringe (and reflect-metadata
 * when no polyfill is loaded), @k/config's readers, @k/transport and @k/rest are imported here, on
 * first call, not when @k/clientset is: see docs/decisions/0007. `close()` on the result closes the transport. Fails
 * with `ERR_DI_UNAVAILABLE` when tsyringe is not installed, and with `ERR_INVALID_ARGUMENT`,
 * before anything is loaded, when an option has the wrong type (plain-JavaScript callers).
 */
export async function createClientset(options: CreateClientsetOptions = {}): Promise<Clientset> {
  checkOptions(options, CREATE_CLIENTSET_OPTIONS, { where: 'createClientset' });
  const throttle = throttleOption(options);
  const discoveryCache = discoveryCacheOption(options);
  // The transport and REST layers (and undici) load here, not when @k/clientset is imported.
  const [
    tsyringe,
    { CREDENTIAL_PROVIDER_FACTORY, registerTransport },
    { REST_CLIENT, registerRest },
  ] = await Promise.all([loadTsyringe(), import('@k/transport'), import('@k/rest')]);
  const config = await loadConfig(options);
  const container = (options.container ?? tsyringe.container).createChildContainer();
  registerTransport(container, { ...options.transport, config });
  for (const factory of options.credentialProviderFactories ?? []) {
    container.register(CREDENTIAL_PROVIDER_FACTORY, { useValue: factory });
  }
  registerRest(container, {
    ...(throttle !== undefined ? { throttle } : {}),
    ...(options.retry !== undefined ? { retry: options.retry } : {}),
    ...(options.client !== undefined ? { client: options.client } : {}),
  });
  registerClientset(container, {
    ...(discoveryCache ? { discoveryCache } : {}),
    onClose: () => container.resolve(REST_CLIENT).dispatcher.close(),
  });
  options.configure?.(container);
  return container.resolve(CLIENTSET);
}
