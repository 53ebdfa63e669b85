import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { FUNCTION, NON_EMPTY_STRING } from '../validation/argument-rules.js';
import { checkOptions, type OptionRules } from '../validation/check-arguments.js';
import { TTL_MS, type DiscoveryCache } from './discovery-cache.js';
import { isServerResources, type ServerResources } from './discovery-documents.js';
import { MemoryDiscoveryCache } from './memory-discovery-cache.js';

const DISK_CACHE_OPTIONS: OptionRules = {
  rules: { directory: NON_EMPTY_STRING, ttlMs: TTL_MS, now: FUNCTION },
};

/** DEFAULT_DISK_CACHE_TTL_MS is how long the disk cache trusts a file: 6 hours, kubectl's default. */
export const DEFAULT_DISK_CACHE_TTL_MS = 6 * 60 * 60 * 1000;

/** defaultDiscoveryCacheDirectory is `~/.kube/cache/k-discovery` (beside kubectl's `discovery`). */
export function defaultDiscoveryCacheDirectory(): string {
  return join(homedir(), '.kube', 'cache', 'k-discovery');
}

/** READABLE_NAME_LENGTH bounds the readable part of a cache file name (names stay far below 255 bytes). */
const READABLE_NAME_LENGTH = 100;

/** MAX_CACHE_FILE_BYTES is more than any discovery document: a larger file is not read. */
const MAX_CACHE_FILE_BYTES = 64 * 1024 * 1024;

/**
 * cacheKey is what identifies a server's discovery: scheme, host, port and path (without trailing
 * slashes). The URL parser lower-cases the host and drops a default port, so spellings of one
 * server share a key; credentials in the URL are left out.
 */
function cacheKey(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * cacheFileName turns a server URL into the name of its cache file:
 * `<scheme>_<host>_<port>[_<path>]-<sha256 of the server>.json`, e.g.
 * `https_127.0.0.1_6443-3f…e1.json`. kubectl names its folders `<host>_<port>` alone
 * (client-go's `computeDiscoverCacheDir` strips the scheme and collapses other characters to `_`,
 * accepting collisions as "unlikely" and "short lived"); here the readable part is only for
 * people, and the SHA-256 of the scheme, host, port and path keeps servers apart — an http and
 * an https server on one port, `/a_b` and `/a/b`, a path too long to spell out.
 */
export function cacheFileName(server: string): string {
  const url = new URL(server);
  const port = url.port || (url.protocol === 'http:' ? '80' : '443');
  const path = url.pathname.replace(/\/+$/, '');
  const readable = `${url.protocol.slice(0, -1)}_${url.hostname}_${port}${path}`
    .replace(/[^a-zA-Z0-9.-]/g, '_')
    .slice(0, READABLE_NAME_LENGTH);
  return `${readable}-${createHash('sha256').update(cacheKey(url)).digest('hex')}.json`;
}

/**
 * readCacheFile returns the text of a regular file of at most {@link MAX_CACHE_FILE_BYTES}, or
 * undefined for anything else. It is opened without following a symlink (a link is not a file
 * the cache wrote) and without blocking (opening a FIFO for reading would wait for a writer
 * forever, holding the process open), and checked on the open handle, so it cannot be swapped
 * between the check and the read.
 */
async function readCacheFile(file: string): Promise<string | undefined> {
  let handle: FileHandle | undefined;
  try {
    // O_NOFOLLOW and O_NONBLOCK are undefined on Windows, where they are left out.
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const info = await handle.stat();
    if (!info.isFile() || info.size > MAX_CACHE_FILE_BYTES) return undefined;
    return await handle.readFile('utf8');
  } catch {
    return undefined;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

interface DiskEntry {
  storedAt: number;
  resources: ServerResources;
}

/**
 * DiskDiscoveryCache keeps discovery in `directory` (default
 * {@link defaultDiscoveryCacheDirectory}), one JSON file per server ({@link cacheFileName}),
 * trusted for `ttlMs` (default 6 hours), with an in-memory layer in front so a process reads each
 * file once. Writes go to a temporary file renamed into place, so readers never see half a file;
 * files are written with mode 0600. The disk is only ever a shortcut: a file that is corrupt, of
 * the wrong shape, expired, stored in the future, too large, not a regular file (a FIFO, a
 * symlink, a folder) or unreadable counts as a miss, and the next fetch replaces it; a write or
 * delete that fails (a read-only home, a folder in the way) is ignored, so discovery itself never
 * fails or hangs because of the cache.
 */
export class DiskDiscoveryCache implements DiscoveryCache {
  readonly directory: string;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #memory: MemoryDiscoveryCache;

  constructor(
    options: {
      directory?: string | undefined;
      ttlMs?: number | undefined;
      now?: (() => number) | undefined;
    } = {},
  ) {
    checkOptions(options, DISK_CACHE_OPTIONS, { where: 'DiskDiscoveryCache' });
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
    const text = await readCacheFile(this.#file(server));
    if (text === undefined) return undefined;
    let entry: unknown;
    try {
      entry = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (typeof entry !== 'object' || entry === null) return undefined;
    const { storedAt, resources } = entry as Partial<DiskEntry>;
    if (typeof storedAt !== 'number' || !isServerResources(resources)) return undefined;
    const age = this.#now() - storedAt;
    if (!(age >= 0 && age < this.#ttlMs)) return undefined;
    await this.#memory.set(server, resources);
    return resources;
  }

  async set(server: string, resources: ServerResources): Promise<void> {
    await this.#memory.set(server, resources);
    const file = this.#file(server);
    const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    const entry: DiskEntry = { storedAt: this.#now(), resources };
    try {
      await mkdir(this.directory, { recursive: true, mode: 0o700 });
      // wx: never write through something already at the temporary name.
      await writeFile(temporary, JSON.stringify(entry), { mode: 0o600, flag: 'wx' });
      await rename(temporary, file);
    } catch {
      // The file stays a miss and is fetched again; the answer is in memory for this process.
      await rm(temporary, { force: true }).catch(() => undefined);
    }
  }

  async delete(server: string): Promise<void> {
    await this.#memory.delete(server);
    // A file that cannot be removed is not a regular file (a miss anyway) or not ours to remove.
    await rm(this.#file(server), { force: true }).catch(() => undefined);
  }
}
