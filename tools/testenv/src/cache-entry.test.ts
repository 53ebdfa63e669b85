import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fakeCacheEntry } from './__fixtures__/fake-cache-entry.js';
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
    const binaries = await verifyCacheEntry(layout);
    expect(binaries.kubeApiServer).toBe(join(layout.binDir, 'kube-apiserver'));
    expect(binaries.stamp.etcdVersion).toBe('v3.7.0');
  });

  it('rejects a binary modified in place (same size) by checksum', async () => {
    const layout = await fakeEntry('modified');
    await writeFile(join(layout.binDir, 'etcd'), '#!/bin/sh\necho XXXX\n');
    await expect(verifyCacheEntry(layout)).rejects.toThrow(/etcd has sha256 .* the stamp says/);
    // Without checksums a same-size change goes unnoticed: that is why checksums are on by default.
    await expect(verifyCacheEntry(layout, false)).resolves.toBeDefined();
  });

  it('rejects a truncated binary, a missing binary and a missing stamp', async () => {
    const truncated = await fakeEntry('truncated');
    await writeFile(join(truncated.binDir, 'kube-apiserver'), '#!');
    await expect(codeOf(verifyCacheEntry(truncated, false))).resolves.toBe('CACHE_CORRUPT');
    const missing = await fakeEntry('missing');
    await rm(join(missing.binDir, 'kube-controller-manager'));
    await expect(verifyCacheEntry(missing)).rejects.toThrow(/kube-controller-manager is missing/);
    const unstamped = await fakeEntry('unstamped');
    await rm(unstamped.stampPath);
    await expect(verifyCacheEntry(unstamped)).rejects.toThrow(/cannot read .*stamp\.json/);
  });

  it('rejects a stamp copied from another entry', async () => {
    const layout = await fakeEntry('copied');
    const other = cacheEntryLayout(root, 'other-key');
    await mkdir(other.entryDir, { recursive: true });
    await rm(other.entryDir, { recursive: true });
    await expect(verifyCacheEntry({ ...layout, key: 'other-key' })).rejects.toThrow(
      /belongs to copied/,
    );
  });
});
