import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, rename, stat, writeFile } from 'node:fs/promises';
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

/** MEMO_FORMAT is the version of `verified.json`; another value is ignored (the entry is hashed). */
const MEMO_FORMAT = 1;

/**
 * VerifiedMemo records a verification that hashed every file: the stamp's digest and, per file,
 * what changes when the file is rewritten or replaced (size, mtime, inode). While all of it is the
 * same, the files are the ones that were hashed.
 */
interface VerifiedMemo {
  readonly format: number;
  readonly stampSha256: string;
  readonly files: Readonly<Record<string, FileIdentity>>;
}

interface FileIdentity {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
  readonly dev: number;
}

/**
 * verifyCacheEntry checks that a cache entry is complete: its stamp exists, names this entry, and
 * each of `files` (paths relative to the entry) is recorded and has the recorded size and SHA-256.
 * Returns the stamp; throws CACHE_CORRUPT with what differs.
 *
 * `verifyChecksums`: `undefined` (default) hashes only what changed since the last verification
 * that hashed everything: the entry's `verified.json` memo holds the stamp's digest and each
 * file's size, mtime and inode, and when all of these are unchanged the files are not read again
 * (a rewrite changes the mtime, a replacement the inode, a new stamp its digest). `true` always
 * hashes (and renews the memo); `false` only checks presence and sizes. `buildCommand` is what
 * the error tells to run.
 */
export async function verifyCacheEntry(
  layout: CacheEntryLayout,
  files: readonly string[],
  verifyChecksums?: boolean,
  buildCommand = 'k-testenv build',
): Promise<BuildStamp> {
  const corrupt = (detail: string) =>
    new ControlPlaneError(
      'CACHE_CORRUPT',
      `cache entry ${layout.entryDir} is not a finished build: ${detail}; run \`${buildCommand}\` to rebuild it`,
      { step: 'verify cache' },
    );
  let stampText: string;
  let stamp: BuildStamp;
  try {
    stampText = await readFile(layout.stampPath, 'utf8');
    stamp = JSON.parse(stampText) as BuildStamp;
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
  const identities: Record<string, FileIdentity> = {};
  await Promise.all(
    files.map(async (file) => {
      const expected = stamp.files[file];
      const path = join(layout.entryDir, file);
      if (!expected) throw corrupt(`stamp has no entry for ${file}`);
      let info;
      try {
        info = await stat(path);
      } catch {
        throw corrupt(`${path} is missing`);
      }
      if (info.size !== expected.size)
        throw corrupt(`${path} has ${info.size} bytes, the stamp says ${expected.size}`);
      identities[file] = { size: info.size, mtimeMs: info.mtimeMs, ino: info.ino, dev: info.dev };
    }),
  );
  if (verifyChecksums === false) return stamp;
  const memo: VerifiedMemo = {
    format: MEMO_FORMAT,
    stampSha256: createHash('sha256').update(stampText).digest('hex'),
    files: identities,
  };
  if (verifyChecksums === undefined && (await memoMatches(layout, memo, files))) return stamp;
  await Promise.all(
    files.map(async (file) => {
      const path = join(layout.entryDir, file);
      const expected = stamp.files[file] as FileRecord;
      const actual = await sha256File(path);
      if (actual !== expected.sha256)
        throw corrupt(`${path} has sha256 ${actual}, the stamp says ${expected.sha256}`);
    }),
  );
  await writeMemo(layout, memo);
  return stamp;
}

async function memoMatches(
  layout: CacheEntryLayout,
  current: VerifiedMemo,
  files: readonly string[],
): Promise<boolean> {
  let recorded: VerifiedMemo;
  try {
    recorded = JSON.parse(await readFile(layout.verifiedPath, 'utf8')) as VerifiedMemo;
  } catch {
    return false;
  }
  if (recorded.format !== MEMO_FORMAT || recorded.stampSha256 !== current.stampSha256) return false;
  return files.every((file) => {
    const was = recorded.files?.[file];
    const now = current.files[file];
    return (
      was !== undefined &&
      now !== undefined &&
      was.size === now.size &&
      was.mtimeMs === now.mtimeMs &&
      was.ino === now.ino &&
      was.dev === now.dev
    );
  });
}

/** writeMemo replaces the memo by rename; an entry this user cannot write is just hashed each time. */
async function writeMemo(layout: CacheEntryLayout, memo: VerifiedMemo): Promise<void> {
  const temporary = `${layout.verifiedPath}.${process.pid}.${Date.now()}`;
  try {
    await writeFile(temporary, `${JSON.stringify(memo)}\n`);
    await rename(temporary, layout.verifiedPath);
  } catch {
    // Read-only cache: nothing to remember.
  }
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
