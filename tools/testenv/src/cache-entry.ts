import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { CacheEntryLayout } from './cache-layout.js';
import { ControlPlaneError } from './errors.js';

/** STAMP_FORMAT is the version of the stamp.json layout; another value means "not our build". */
export const STAMP_FORMAT = 2;

/** FileRecord is the size and SHA-256 of one file of a cache entry. */
export interface FileRecord {
  readonly sha256: string;
  readonly size: number;
}

/** BuildStamp is the completion record of a cache entry, written after everything else. */
export interface BuildStamp {
  readonly format: number;
  readonly key: string;
  /** What was built, by name, e.g. `{ kubernetes: '1.37.2', etcd: 'v3.7.0' }`. */
  readonly versions: Readonly<Record<string, string>>;
  readonly goVersion: string;
  readonly goos: string;
  readonly goarch: string;
  readonly builtAt: string;
  readonly buildSeconds: number;
  /** Every file of the entry that is used, by path relative to the entry directory. */
  readonly files: Readonly<Record<string, FileRecord>>;
}

/**
 * verifyCacheEntry checks that a cache entry is complete: its stamp exists, names this entry, and
 * each of `files` (paths relative to the entry) is recorded and has the recorded size (and, with
 * `verifyChecksums`, SHA-256). Returns the stamp; throws CACHE_CORRUPT with what differs.
 */
export async function verifyCacheEntry(
  layout: CacheEntryLayout,
  files: readonly string[],
  verifyChecksums = true,
): Promise<BuildStamp> {
  const corrupt = (detail: string) =>
    new ControlPlaneError(
      'CACHE_CORRUPT',
      `cache entry ${layout.entryDir} is not a finished build: ${detail}; run \`k-testenv build\` to rebuild it`,
      { step: 'verify cache' },
    );
  let stamp: BuildStamp;
  try {
    stamp = JSON.parse(await readFile(layout.stampPath, 'utf8')) as BuildStamp;
  } catch (error) {
    throw corrupt(`cannot read ${layout.stampPath} (${(error as Error).message})`);
  }
  if (
    stamp.format !== STAMP_FORMAT ||
    stamp.key !== layout.key ||
    typeof stamp.files !== 'object'
  ) {
    throw corrupt(`stamp ${layout.stampPath} belongs to ${String(stamp.key)}`);
  }
  await Promise.all(
    files.map(async (file) => {
      const expected = stamp.files[file];
      const path = join(layout.entryDir, file);
      if (!expected) throw corrupt(`stamp has no entry for ${file}`);
      let size: number;
      try {
        size = (await stat(path)).size;
      } catch {
        throw corrupt(`${path} is missing`);
      }
      if (size !== expected.size)
        throw corrupt(`${path} has ${size} bytes, the stamp says ${expected.size}`);
      if (verifyChecksums) {
        const actual = await sha256File(path);
        if (actual !== expected.sha256)
          throw corrupt(`${path} has sha256 ${actual}, the stamp says ${expected.sha256}`);
      }
    }),
  );
  return stamp;
}

/** recordFiles returns the size and SHA-256 of each of `files` (relative to `dir`). */
export async function recordFiles(
  dir: string,
  files: readonly string[],
): Promise<Record<string, FileRecord>> {
  const records: Record<string, FileRecord> = {};
  for (const file of files) {
    const path = join(dir, file);
    records[file] = { sha256: await sha256File(path), size: (await stat(path)).size };
  }
  return records;
}

/** sha256File returns the hex SHA-256 of a file, streamed. */
export function sha256File(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}
