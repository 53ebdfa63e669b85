import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { BINARY_NAMES, type BinaryName, type CacheEntryLayout } from './cache-layout.js';
import { ControlPlaneError } from './errors.js';

/** STAMP_FORMAT is the version of the stamp.json layout; another value means "not our build". */
export const STAMP_FORMAT = 1;

/** BuildStamp is the completion record of a cache entry, written after everything else. */
export interface BuildStamp {
  readonly format: number;
  readonly key: string;
  readonly kubernetesVersion: string;
  readonly etcdVersion: string;
  readonly goVersion: string;
  readonly goos: string;
  readonly goarch: string;
  readonly builtAt: string;
  readonly buildSeconds: number;
  readonly binaries: Readonly<
    Record<BinaryName, { readonly sha256: string; readonly size: number }>
  >;
}

/** Binaries are the absolute paths of a verified cache entry's executables. */
export interface Binaries {
  readonly etcd: string;
  readonly kubeApiServer: string;
  readonly kubeControllerManager: string;
  readonly entryDir: string;
  readonly stamp: BuildStamp;
}

/**
 * verifyCacheEntry checks that a cache entry is complete: its stamp exists, names this entry, and
 * every binary has the recorded size (and, with `verifyChecksums`, SHA-256). Throws CACHE_CORRUPT
 * with what differs.
 */
export async function verifyCacheEntry(
  layout: CacheEntryLayout,
  verifyChecksums = true,
): Promise<Binaries> {
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
    typeof stamp.binaries !== 'object'
  ) {
    throw corrupt(`stamp ${layout.stampPath} belongs to ${String(stamp.key)}`);
  }
  await Promise.all(
    BINARY_NAMES.map(async (name) => {
      const expected = stamp.binaries[name];
      const path = join(layout.binDir, name);
      if (!expected) throw corrupt(`stamp has no entry for ${name}`);
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
  return {
    etcd: join(layout.binDir, 'etcd'),
    kubeApiServer: join(layout.binDir, 'kube-apiserver'),
    kubeControllerManager: join(layout.binDir, 'kube-controller-manager'),
    entryDir: layout.entryDir,
    stamp,
  };
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
