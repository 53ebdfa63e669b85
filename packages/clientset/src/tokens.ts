import type { InjectionToken } from 'tsyringe';
import type { Clientset } from './clientset.js';
import type { DiscoveryCache } from './discovery/discovery-cache.js';
import type { DiscoveryClient } from './discovery/discovery-client.js';
import type { RestMapper } from './discovery/rest-mapper.js';
import type { DynamicClient } from './dynamic/dynamic-client.js';

/** DISCOVERY_CACHE is where the container's discovery client keeps what it found (default: in memory). */
export const DISCOVERY_CACHE: InjectionToken<DiscoveryCache> = Symbol.for(
  '@k/clientset.DiscoveryCache',
);

/** DISCOVERY_CLIENT is the container's discovery client, over @k/rest's `REST_CLIENT`. */
export const DISCOVERY_CLIENT: InjectionToken<DiscoveryClient> = Symbol.for(
  '@k/clientset.DiscoveryClient',
);

/** REST_MAPPER maps kinds to resources from `DISCOVERY_CLIENT`. */
export const REST_MAPPER: InjectionToken<RestMapper> = Symbol.for('@k/clientset.RestMapper');

/** DYNAMIC_CLIENT reaches any resource (CRDs included) without generated types. */
export const DYNAMIC_CLIENT: InjectionToken<DynamicClient> = Symbol.for(
  '@k/clientset.DynamicClient',
);

/** CLIENTSET is the container's clientset: every built-in group plus discovery, mapper and dynamic client. */
export const CLIENTSET: InjectionToken<Clientset> = Symbol.for('@k/clientset.Clientset');
