import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
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

/**
 * MemoryDiscoveryCache holds discovery in memory for `ttlMs` (default: until deleted, like
 * client-go's memory cache, which is invalidated on a mapping miss instead of by time).
 */
export class MemoryDiscoveryCache implements DiscoveryCache {
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, { resources: ServerResources; storedAt: number }>();

  constructor(options: { ttlMs?: number; now?: () => number } = {}) {
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

/** DEFAULT_DISK_CACHE_TTL_MS is how long the disk cache trusts a file: 6 hours, kubectl's default. */
export const DEFAULT_DISK_CACHE_TTL_MS = 6 * 60 * 60 * 1000;

/** defaultDiscoveryCacheDirectory is `~/.kube/cache/k-discovery` (beside kubectl's `discovery`). */
export function defaultDiscoveryCacheDirectory(): string {
  return join(homedir(), '.kube', 'cache', 'k-discovery');
}

/** cacheFileName turns a server URL into a file name the way kubectl names its cache directories (`127.0.0.1_6443`). */
export function cacheFileName(server: string): string {
  const url = new URL(server);
  const path = `${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  return `${path.replace(/[^a-zA-Z0-9.-]/g, '_')}.json`;
}

interface DiskEntry {
  storedAt: number;
  resources: ServerResources;
}

/**
 * DiskDiscoveryCache keeps discovery in `directory` (default
 * {@link defaultDiscoveryCacheDirectory}), one JSON file per server, trusted for `ttlMs` (default
 * 6 hours), with an in-memory layer in front so a process reads each file once. Writes go to a
 * temporary file renamed into place, so readers never see half a file; a corrupt or unreadable
 * file counts as a miss. Files are written with mode 0600.
 */
export class DiskDiscoveryCache implements DiscoveryCache {
  readonly directory: string;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #memory: MemoryDiscoveryCache;

  constructor(options: { directory?: string; ttlMs?: number; now?: () => number } = {}) {
    this.directory = options.directory ?? defaultDiscoveryCacheDirectory();
    this.#ttlMs = options.ttlMs ?? DEFAULT_DISK_CACHE_TTL_MS;
    this.#now = options.now ?? Date.now;
    this.#memory = new MemoryDiscoveryCache({ ttlMs: this.#ttlMs, now: this.#now });
  }

  #file(server: string): string {
    return join(this.directory, cacheFileName(server));
  }

  async get(server: string): Promise<ServerResources | undefined> {
    const cached = await this.#memory.get(server);
    if (cached) return cached;
    let entry: DiskEntry;
    try {
      entry = JSON.parse(await readFile(this.#file(server), 'utf8')) as DiskEntry;
    } catch {
      return undefined;
    }
    if (typeof entry.storedAt !== 'number' || !Array.isArray(entry.resources?.resources)) {
      return undefined;
    }
    if (this.#now() - entry.storedAt >= this.#ttlMs) return undefined;
    await this.#memory.set(server, entry.resources);
    return entry.resources;
  }

  async set(server: string, resources: ServerResources): Promise<void> {
    await this.#memory.set(server, resources);
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    const file = this.#file(server);
    const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    const entry: DiskEntry = { storedAt: this.#now(), resources };
    await writeFile(temporary, JSON.stringify(entry), { mode: 0o600 });
    await rename(temporary, file);
  }

  async delete(server: string): Promise<void> {
    await this.#memory.delete(server);
    await rm(this.#file(server), { force: true });
  }
}
