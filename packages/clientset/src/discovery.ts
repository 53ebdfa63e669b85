// @k/clientset/discovery: discovery documents, their caches and REST mapping queries, for code
// that reads discovery itself (the clientset's `discovery` and `mapper` use them).
export { AGGREGATED_DISCOVERY_ACCEPT } from './discovery/discovery-client.js';
export type { DiscoveryClientOptions, VersionInfo } from './discovery/discovery-client.js';
export { MemoryDiscoveryCache } from './discovery/memory-discovery-cache.js';
export {
  DiskDiscoveryCache,
  DEFAULT_DISK_CACHE_TTL_MS,
  cacheFileName,
  defaultDiscoveryCacheDirectory,
} from './discovery/disk-discovery-cache.js';
export {
  fromAggregated,
  fromResourceList,
  isServerResources,
} from './discovery/discovery-documents.js';
export type {
  AggregatedDiscoveryList,
  APIGroupList,
  APIResourceList,
  APIVersions,
  DiscoveredGroup,
  ServerResources,
} from './discovery/discovery-documents.js';
export { findByKind, findByName } from './discovery/rest-mapper.js';
export type { KindQuery } from './discovery/rest-mapper.js';
