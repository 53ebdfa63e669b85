import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
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
});
