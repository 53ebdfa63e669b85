import type { ConfigOverrides, ResolvedConfig } from '@k/config';
import { createRestClient, type CreateRestClientOptions } from '@k/rest';
import { Clientset } from './clientset.js';
import type { DiscoveryCache } from './discovery/discovery-cache.js';
import { DiskDiscoveryCache } from './discovery/disk-discovery-cache.js';
import { DiscoveryClient } from './discovery/discovery-client.js';
import {
  anyOf,
  BOOLEAN,
  DISCOVERY_CACHE,
  isPlainObject,
  NON_EMPTY_STRING,
  OBJECT,
  oneOf,
  PLAIN_OBJECT,
  type ArgumentRule,
} from './validation/argument-rules.js';
import { checkArgument, checkOptions, type OptionRules } from './validation/check-arguments.js';

const CONFIG: ArgumentRule = {
  expected: 'a ResolvedConfig from @k/config (resolveConfig, inferConfig)',
  test: (value) => isPlainObject(value) && typeof value.server === 'string',
};

/** DiskDiscoveryCacheSettings make a `DiskDiscoveryCache` (kubectl's `~/.kube/cache/discovery`). */
export interface DiskDiscoveryCacheSettings {
  directory?: string | undefined;
  ttlMs?: number | undefined;
}

/**
 * ClientsetOptions configure {@link createClientset}: the REST client's options (`throttle`,
 * `retry`, `timeoutMs`, `warningHandler`, `onRetry`, …, and `transport` for @k/transport's) and
 * where discovery is kept.
 */
export interface ClientsetOptions extends CreateRestClientOptions {
  /** discoveryCache: a cache, or `{ directory?, ttlMs? }` for a `DiskDiscoveryCache` (default: memory). */
  discoveryCache?: DiscoveryCache | DiskDiscoveryCacheSettings | undefined;
}

/** InferClientsetOptions configure {@link inferClientset}: where the configuration comes from, and the clientset's options. */
export interface InferClientsetOptions extends ClientsetOptions {
  /** kubeconfig is `--kubeconfig`: load only this file. */
  kubeconfig?: string | undefined;
  /** context is `--context`. */
  context?: string | undefined;
  /** overrides are kubectl's other global flags (`--namespace`, `--server`, `--as`, …). */
  overrides?: ConfigOverrides | undefined;
  /**
   * inCluster: `true` uses only the pod's service account, `false` only kubeconfig files, unset
   * infers like kubectl (kubeconfig, else in-cluster).
   */
  inCluster?: boolean | undefined;
}

const THROTTLE: ArgumentRule = anyOf(oneOf('off'), OBJECT);
const DISCOVERY_CACHE_OPTION: ArgumentRule = {
  expected: 'a DiscoveryCache or { directory, ttlMs }',
  test: (value) => DISCOVERY_CACHE.test(value) || isPlainObject(value),
};

/** The rules of {@link ClientsetOptions}; the REST and transport options are checked where they are used. */
const CLIENTSET_OPTIONS: OptionRules = {
  rules: { discoveryCache: DISCOVERY_CACHE_OPTION, throttle: THROTTLE, transport: OBJECT },
};

const INFER_CLIENTSET_OPTIONS: OptionRules = {
  rules: {
    ...CLIENTSET_OPTIONS.rules,
    kubeconfig: NON_EMPTY_STRING,
    context: NON_EMPTY_STRING,
    overrides: PLAIN_OBJECT,
    inCluster: BOOLEAN,
  },
};

function discoveryCacheFrom(cache: ClientsetOptions['discoveryCache']): DiscoveryCache | undefined {
  if (cache === undefined) return undefined;
  return DISCOVERY_CACHE.test(cache)
    ? (cache as DiscoveryCache)
    : new DiskDiscoveryCache(cache as DiskDiscoveryCacheSettings);
}

/**
 * createClientset builds the clientset for a resolved configuration, synchronously: a
 * `RestClient` from `createRestClient(config, options)` (a @k/transport `Transport`, one token
 * bucket, the retry policy, the configuration's timeout and namespace) and the typed groups,
 * discovery, REST mapper and dynamic client over it. The clientset owns what it made:
 * `await cs.close()` ends its watches and streams and closes the transport. Throws a typed error
 * (`ERR_CLIENTSET_INVALID_ARGUMENT`, or the layer's own) for bad arguments, before anything is made.
 */
export function createClientset(config: ResolvedConfig, options: ClientsetOptions = {}): Clientset {
  const context = { where: 'createClientset' };
  checkArgument(config, CONFIG, 'config', context);
  checkOptions(options, CLIENTSET_OPTIONS, context);
  const { discoveryCache, ...restOptions } = options;
  const cache = discoveryCacheFrom(discoveryCache);
  const rest = createRestClient(config, restOptions);
  return new Clientset(rest, cache ? { discovery: new DiscoveryClient(rest, { cache }) } : {});
}

async function loadConfig(options: InferClientsetOptions): Promise<ResolvedConfig> {
  // The kubeconfig readers load here: a program that builds its config itself never pays for them.
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

/**
 * inferClientset finds the configuration the way kubectl does — `kubeconfig` (`--kubeconfig`),
 * else `KUBECONFIG`, else `~/.kube/config`, with `context` and the other global-flag
 * `overrides`; else, or with `inCluster: true`, the pod's service account — and returns
 * {@link createClientset} for it. Rejects with @k/config's errors (both causes when neither
 * source works) or the clientset's argument errors.
 */
export async function inferClientset(options: InferClientsetOptions = {}): Promise<Clientset> {
  checkOptions(options, INFER_CLIENTSET_OPTIONS, { where: 'inferClientset' });
  const { kubeconfig, context, overrides, inCluster, ...clientsetOptions } = options;
  const config = await loadConfig({
    ...(kubeconfig !== undefined ? { kubeconfig } : {}),
    ...(context !== undefined ? { context } : {}),
    ...(overrides !== undefined ? { overrides } : {}),
    ...(inCluster !== undefined ? { inCluster } : {}),
  });
  return createClientset(config, clientsetOptions);
}
