import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fakeCacheEntry } from './__fixtures__/fake-cache-entry.js';
import { ensureBinaries } from './build.js';
import { cacheKey } from './cache-layout.js';
import { kubernetesRecipe } from './kubernetes-build.js';
import { ControlPlaneError } from './errors.js';
import { readGoEnvironment } from './go-environment.js';
import { KUBERNETES_VERSION } from './release.js';

const root = await mkdtemp(join(tmpdir(), 'k-testenv-cache-'));
afterAll(() => rm(root, { recursive: true, force: true }));

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!ControlPlaneError.isInstance(error))
    throw new Error(`expected a ControlPlaneError, got ${String(error)}`);
  return error.code;
}

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
    const recipe = kubernetesRecipe(KUBERNETES_VERSION);
    const key = cacheKey({
      name: recipe.name,
      version: recipe.version,
      recipe: recipe.recipe,
      ...go,
    });
    const layout = await fakeCacheEntry(root, key);
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
