import type { ArgumentRule } from '../validation/argument-rules.js';
import type { ServerResources } from './discovery-documents.js';

/**
 * DiscoveryCache keeps what discovery found, per server URL. `get` returns undefined when it has
 * nothing fresh; `delete` forgets a server (after a mapping miss, say). Implementations must be
 * safe for concurrent use.
 */
export interface DiscoveryCache {
  get(server: string): Promise<ServerResources | undefined>;
  set(server: string, resources: ServerResources): Promise<void>;
  delete(server: string): Promise<void>;
}

/** TTL_MS is the rule of a cache's time to live: milliseconds, `Infinity` for never. */
export const TTL_MS: ArgumentRule = {
  expected: 'a number of 0 or more',
  test: (value) => typeof value === 'number' && value >= 0,
};
