import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { recordFiles, STAMP_FORMAT } from '../cache-entry.js';
import { BINARY_NAMES, cacheEntryLayout, type CacheEntryLayout } from '../cache-layout.js';

/** The files of the Kubernetes entry, as the recipe lists them. */
export const FAKE_ENTRY_FILES = BINARY_NAMES.map((name) => `bin/${name}`);

/**
 * fakeCacheEntry writes a cache entry `key` under `root` whose "binaries" are tiny shell scripts,
 * with a stamp that matches them, for tests of verification without a real build.
 */
export async function fakeCacheEntry(root: string, key: string): Promise<CacheEntryLayout> {
  const layout = cacheEntryLayout(root, key);
  await mkdir(layout.binDir, { recursive: true });
  for (const name of BINARY_NAMES) {
    await writeFile(join(layout.binDir, name), `#!/bin/sh\necho ${name}\n`, { mode: 0o755 });
  }
  const stamp = {
    format: STAMP_FORMAT,
    key,
    versions: { kubernetes: '1.37.2', etcd: 'v3.7.0' },
    files: await recordFiles(layout.entryDir, FAKE_ENTRY_FILES),
  };
  await writeFile(layout.stampPath, JSON.stringify(stamp));
  return layout;
}
