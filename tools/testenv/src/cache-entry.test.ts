import { mkdir, mkdtemp, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FAKE_ENTRY_FILES, fakeCacheEntry } from './__fixtures__/fake-cache-entry.js';
import { verifyCacheEntry } from './cache-entry.js';
import { cacheEntryLayout } from './cache-layout.js';
import { ControlPlaneError } from './errors.js';

const root = await mkdtemp(join(tmpdir(), 'k-testenv-entry-'));
afterAll(() => rm(root, { recursive: true, force: true }));
const fakeEntry = (key: string) => fakeCacheEntry(root, key);

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!ControlPlaneError.isInstance(error))
    throw new Error(`expected a ControlPlaneError, got ${String(error)}`);
  return error.code;
}

describe('verifyCacheEntry', () => {
  it('accepts an entry whose binaries match the stamp', async () => {
    const layout = await fakeEntry('good');
    const stamp = await verifyCacheEntry(layout, FAKE_ENTRY_FILES);
    expect(stamp.versions.etcd).toBe('v3.7.0');
    expect(Object.keys(stamp.files)).toContain('bin/kube-scheduler');
  });

  it('rejects a binary modified in place (same size) by checksum', async () => {
    const layout = await fakeEntry('modified');
    await writeFile(join(layout.binDir, 'etcd'), '#!/bin/sh\necho XXXX\n');
    await expect(verifyCacheEntry(layout, FAKE_ENTRY_FILES)).rejects.toThrow(
      /etcd has sha256 .* the stamp says/,
    );
    // Without checksums a same-size change goes unnoticed: that is why checksums are on by default.
    await expect(verifyCacheEntry(layout, FAKE_ENTRY_FILES, false)).resolves.toBeDefined();
  });

  it('rejects a truncated binary, a missing binary and a missing stamp', async () => {
    const truncated = await fakeEntry('truncated');
    await writeFile(join(truncated.binDir, 'kube-apiserver'), '#!');
    await expect(codeOf(verifyCacheEntry(truncated, FAKE_ENTRY_FILES, false))).resolves.toBe(
      'CACHE_CORRUPT',
    );
    const missing = await fakeEntry('missing');
    await rm(join(missing.binDir, 'kube-controller-manager'));
    await expect(verifyCacheEntry(missing, FAKE_ENTRY_FILES)).rejects.toThrow(
      /kube-controller-manager is missing/,
    );
    const unstamped = await fakeEntry('unstamped');
    await rm(unstamped.stampPath);
    await expect(verifyCacheEntry(unstamped, FAKE_ENTRY_FILES)).rejects.toThrow(
      /cannot read .*stamp\.json/,
    );
  });

  it('rejects an entry whose stamp lacks a file the recipe needs', async () => {
    const layout = await fakeEntry('older-recipe');
    await expect(verifyCacheEntry(layout, [...FAKE_ENTRY_FILES, 'bin/kwok'])).rejects.toThrow(
      /stamp has no entry for bin\/kwok/,
    );
  });

  it('rejects a stamp copied from another entry', async () => {
    const layout = await fakeEntry('copied');
    const other = cacheEntryLayout(root, 'other-key');
    await mkdir(other.entryDir, { recursive: true });
    await rm(other.entryDir, { recursive: true });
    await expect(
      verifyCacheEntry({ ...layout, key: 'other-key' }, FAKE_ENTRY_FILES),
    ).rejects.toThrow(/belongs to copied/);
  });

  describe('the verified memo', () => {
    /**
     * tamper rewrites etcd with other bytes of the same size and, unless told otherwise, gives it
     * back its mtime: only the checksum can tell.
     */
    async function tamper(
      path: string,
      { keepMtime = true, replace = false }: { keepMtime?: boolean; replace?: boolean } = {},
    ): Promise<void> {
      const text = await readFile(path, 'utf8');
      const changed = text.replace('etcd', 'XXXX');
      if (replace) {
        await writeFile(`${path}.new`, changed, { mode: 0o755 });
        await rename(`${path}.new`, path);
      } else {
        await writeFile(path, changed);
      }
      if (keepMtime) await utimes(path, ROUND_TIME, ROUND_TIME);
    }

    /** ROUND_TIME is an mtime utimes can set exactly (a file's own has nanoseconds). */
    const ROUND_TIME = 1_700_000_000;

    /** memoEntry is a fake entry whose etcd has {@link ROUND_TIME}, verified once (the memo). */
    async function memoEntry(key: string) {
      const layout = await fakeEntry(key);
      await utimes(join(layout.binDir, 'etcd'), ROUND_TIME, ROUND_TIME);
      await verifyCacheEntry(layout, FAKE_ENTRY_FILES);
      return layout;
    }

    it('skips hashing while size, mtime and inode are unchanged; verifyChecksums: true always hashes', async () => {
      const layout = await memoEntry('memo-unchanged');
      await tamper(join(layout.binDir, 'etcd'));
      // The memo vouches for the file as it was hashed: a change that keeps size, mtime and inode
      // is not read (only deliberate tampering does that).
      await expect(verifyCacheEntry(layout, FAKE_ENTRY_FILES)).resolves.toBeDefined();
      await expect(verifyCacheEntry(layout, FAKE_ENTRY_FILES, true)).rejects.toThrow(
        /etcd has sha256 .* the stamp says/,
      );
    });

    it('hashes again when a file was rewritten (mtime) or replaced (inode)', async () => {
      const rewritten = await memoEntry('memo-rewritten');
      await tamper(join(rewritten.binDir, 'etcd'), { keepMtime: false });
      await expect(codeOf(verifyCacheEntry(rewritten, FAKE_ENTRY_FILES))).resolves.toBe(
        'CACHE_CORRUPT',
      );

      const replaced = await memoEntry('memo-replaced');
      await tamper(join(replaced.binDir, 'etcd'), { replace: true });
      await expect(codeOf(verifyCacheEntry(replaced, FAKE_ENTRY_FILES))).resolves.toBe(
        'CACHE_CORRUPT',
      );
    });

    it('hashes again when the stamp changed', async () => {
      const layout = await memoEntry('memo-stamp');
      await tamper(join(layout.binDir, 'etcd'));
      const stamp = JSON.parse(await readFile(layout.stampPath, 'utf8')) as Record<string, unknown>;
      await writeFile(layout.stampPath, JSON.stringify({ ...stamp, builtAt: 'later' }));
      await expect(verifyCacheEntry(layout, FAKE_ENTRY_FILES)).rejects.toThrow(
        /etcd has sha256 .* the stamp says/,
      );
    });

    it('is written only by a verification that hashed everything and passed', async () => {
      const layout = await fakeEntry('memo-failed');
      await verifyCacheEntry(layout, FAKE_ENTRY_FILES, false);
      await expect(stat(layout.verifiedPath)).rejects.toThrow();
      await tamper(join(layout.binDir, 'etcd'));
      await expect(verifyCacheEntry(layout, FAKE_ENTRY_FILES)).rejects.toThrow();
      await expect(stat(layout.verifiedPath)).rejects.toThrow();
    });
  });
});
