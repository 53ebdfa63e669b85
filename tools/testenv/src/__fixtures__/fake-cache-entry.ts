import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256File, STAMP_FORMAT } from '../cache-entry.js';
import { BINARY_NAMES, cacheEntryLayout, type CacheEntryLayout } from '../cache-layout.js';

/**
 * fakeCacheEntry writes a cache entry `key` under `root` whose "binaries" are tiny shell scripts,
 * with a stamp that matches them, for tests of verification without a real build.
 */
export async function fakeCacheEntry(root: string, key: string): Promise<CacheEntryLayout> {
  const layout = cacheEntryLayout(root, key);
  await mkdir(layout.binDir, { recursive: true });
  const binaries = {} as Record<string, { sha256: string; size: number }>;
  for (const name of BINARY_NAMES) {
    const path = join(layout.binDir, name);
    const content = `#!/bin/sh\necho ${name}\n`;
    await writeFile(path, content, { mode: 0o755 });
    binaries[name] = { sha256: await sha256File(path), size: content.length };
  }
  const stamp = { format: STAMP_FORMAT, key, kubernetesVersion: '1.37.2', etcdVersion: 'v3.7.0', binaries };
  await writeFile(layout.stampPath, JSON.stringify(stamp));
  return layout;
}
