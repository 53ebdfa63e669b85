import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** CacheKeyParts identify one build: a different value of any part needs a different build. */
export interface CacheKeyParts {
  /** What the entry holds, e.g. `kubernetes` or `kwok`. */
  readonly name: string;
  /** The version of what is built, e.g. `1.37.2` or `v0.8.0`. */
  readonly version: string;
  /** As `go env GOVERSION` prints it, e.g. `go1.26.8`. */
  readonly goVersion: string;
  readonly goos: string;
  readonly goarch: string;
  /**
   * What this code builds into the entry (files, commands, tags, stamp format). Its hash ends the
   * key, so code that builds a different set of files never reads or replaces another code's entry
   * in a cache shared by several checkouts.
   */
  readonly recipe: unknown;
}

/** recipeHash is the 8-hex-digit digest of a recipe (JSON with sorted keys). */
export function recipeHash(recipe: unknown): string {
  const canonical = JSON.stringify(recipe, (_key, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)))
      : value,
  );
  return createHash('sha256').update(canonical).digest('hex').slice(0, 8);
}

/**
 * cacheKey names the cache entry of a build, e.g. `kubernetes-v1.37.2-go1.26.8-linux-amd64-1a2b3c4d`
 * (the last part is {@link recipeHash}). It contains only characters safe in a file name.
 */
export function cacheKey(parts: CacheKeyParts): string {
  const raw = `${parts.name}-v${parts.version.replace(/^v/, '')}-${parts.goVersion}-${parts.goos}-${parts.goarch}-${recipeHash(parts.recipe)}`;
  return raw.replace(/[^A-Za-z0-9._-]/g, '_');
}

/**
 * resolveCacheRoot returns the cache root: `$K_TESTENV_CACHE` when set, else
 * `$XDG_CACHE_HOME/k-testenv`, else `~/.cache/k-testenv`. Relative values are used as given.
 */
export function resolveCacheRoot(
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir(),
): string {
  if (env.K_TESTENV_CACHE) return env.K_TESTENV_CACHE;
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg ? xdg : join(home, '.cache'), 'k-testenv');
}

/** BINARY_NAMES are the executables of the Kubernetes cache entry, in `bin/`. */
export const BINARY_NAMES = [
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
] as const;

/** BinaryName is one of {@link BINARY_NAMES}. */
export type BinaryName = (typeof BINARY_NAMES)[number];

/**
 * CacheEntryLayout gives the paths inside one cache entry. The stamp is written last, so an entry
 * without a valid stamp is never used.
 */
export interface CacheEntryLayout {
  readonly root: string;
  readonly key: string;
  readonly entryDir: string;
  readonly binDir: string;
  readonly stampPath: string;
  /** The memo of the last verification that hashed every file (see verifyCacheEntry). */
  readonly verifiedPath: string;
  readonly lockPath: string;
}

/** cacheEntryLayout returns the paths of the entry `key` under the cache root. */
export function cacheEntryLayout(root: string, key: string): CacheEntryLayout {
  const entryDir = join(root, key);
  return {
    root,
    key,
    entryDir,
    binDir: join(entryDir, 'bin'),
    stampPath: join(entryDir, 'stamp.json'),
    verifiedPath: join(entryDir, 'verified.json'),
    lockPath: join(root, `${key}.lock`),
  };
}
