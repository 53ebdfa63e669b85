import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ensureBinaries,
  readGoEnvironment,
  sha256File,
  verifyCacheEntry,
  type BuildStamp,
} from './build.js';
import { BINARY_NAMES, cacheEntryLayout, cacheKey } from './cache-layout.js';
import { ControlPlaneError } from './errors.js';
import { KUBERNETES_VERSION } from './release.js';

const root = await mkdtemp(join(tmpdir(), 'k-testenv-cache-'));
afterAll(() => rm(root, { recursive: true, force: true }));

/** A fake entry: small files standing in for the binaries, with a matching stamp. */
async function fakeEntry(key: string): Promise<ReturnType<typeof cacheEntryLayout>> {
  const layout = cacheEntryLayout(root, key);
  await mkdir(layout.binDir, { recursive: true });
  const binaries = {} as Record<string, { sha256: string; size: number }>;
  for (const name of BINARY_NAMES) {
    const path = join(layout.binDir, name);
    await writeFile(path, `#!/bin/sh\necho ${name}\n`, { mode: 0o755 });
    binaries[name] = { sha256: await sha256File(path), size: `#!/bin/sh\necho ${name}\n`.length };
  }
  const stamp = {
    format: 1,
    key,
    kubernetesVersion: '1.37.2',
    etcdVersion: 'v3.7.0',
    binaries,
  } as unknown as BuildStamp;
  await writeFile(layout.stampPath, JSON.stringify(stamp));
  return layout;
}

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

describe('ensureBinaries', () => {
  it('fails with BINARIES_MISSING on an empty cache when building is not allowed', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'k-testenv-empty-'));
    try {
      await expect(codeOf(ensureBinaries({ cacheRoot: empty, build: false }))).resolves.toBe(
        'BINARIES_MISSING',
      );
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('fails with CACHE_CORRUPT (not a rebuild) for a broken entry when building is not allowed', async () => {
    const go = await readGoEnvironment();
    const key = cacheKey({ kubernetesVersion: KUBERNETES_VERSION, ...go });
    const layout = await fakeEntry(key);
    await writeFile(join(layout.binDir, 'etcd'), 'corrupted');
    const error = await ensureBinaries({ cacheRoot: root, build: false }).catch(
      (caught: unknown) => caught,
    );
    expect((error as ControlPlaneError).code).toBe('CACHE_CORRUPT');
    expect((error as Error).message).toContain('k-testenv build');
  });

  it('fails with GO_UNAVAILABLE when the go executable does not exist', async () => {
    await expect(codeOf(ensureBinaries({ cacheRoot: root, go: '/nonexistent/go' }))).resolves.toBe(
      'GO_UNAVAILABLE',
    );
  });
});
