import { FUNCTION } from '../validation/argument-rules.js';
import { checkOptions, type OptionRules } from '../validation/check-arguments.js';
import { TTL_MS, type DiscoveryCache } from './discovery-cache.js';
import type { ServerResources } from './discovery-documents.js';

const MEMORY_CACHE_OPTIONS: OptionRules = { rules: { ttlMs: TTL_MS, now: FUNCTION } };

/**
 * MemoryDiscoveryCache holds discovery in memory for `ttlMs` (default: until deleted, like
 * client-go's memory cache, which is invalidated on a mapping miss instead of by time).
 */
export class MemoryDiscoveryCache implements DiscoveryCache {
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, { resources: ServerResources; storedAt: number }>();

  constructor(options: { ttlMs?: number | undefined; now?: (() => number) | undefined } = {}) {
    checkOptions(options, MEMORY_CACHE_OPTIONS, { where: 'MemoryDiscoveryCache' });
    this.#ttlMs = options.ttlMs ?? Infinity;
    this.#now = options.now ?? Date.now;
  }

  get(server: string): Promise<ServerResources | undefined> {
    const entry = this.#entries.get(server);
    if (entry && this.#now() - entry.storedAt < this.#ttlMs)
      return Promise.resolve(entry.resources);
    if (entry) this.#entries.delete(server);
    return Promise.resolve(undefined);
  }

  set(server: string, resources: ServerResources): Promise<void> {
    this.#entries.set(server, { resources, storedAt: this.#now() });
    return Promise.resolve();
  }

  delete(server: string): Promise<void> {
    this.#entries.delete(server);
    return Promise.resolve();
  }
}
