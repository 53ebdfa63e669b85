import { describe, expect, it } from 'vitest';
import { cacheEntryLayout, cacheKey, recipeHash, resolveCacheRoot } from './cache-layout.js';
import { kubernetesRecipe } from './kubernetes-build.js';

const base = {
  name: 'kubernetes',
  version: '1.37.2',
  goVersion: 'go1.26.8',
  goos: 'linux',
  goarch: 'amd64',
  recipe: { binaries: ['etcd', 'kube-apiserver'] },
};

describe('cacheKey', () => {
  it('names what is built, its version, the Go version, the platform and the recipe', () => {
    expect(cacheKey(base)).toBe(
      `kubernetes-v1.37.2-go1.26.8-linux-amd64-${recipeHash(base.recipe)}`,
    );
    expect(recipeHash(base.recipe)).toMatch(/^[0-9a-f]{8}$/);
  });

  it('differs when any part differs and stays a safe file name', () => {
    const keys = new Set([
      cacheKey(base),
      cacheKey({ ...base, name: 'kwok' }),
      cacheKey({ ...base, version: '1.36.5' }),
      cacheKey({ ...base, goVersion: 'go1.26.9' }),
      cacheKey({ ...base, goarch: 'arm64' }),
      cacheKey({ ...base, goos: 'darwin' }),
      cacheKey({ ...base, recipe: { binaries: ['etcd', 'kube-apiserver', 'kube-scheduler'] } }),
    ]);
    expect(keys.size).toBe(7);
    expect(cacheKey({ ...base, goVersion: 'go1.27rc1 X:boringcrypto' })).toMatch(
      /^[A-Za-z0-9._-]+$/,
    );
  });

  it('hashes a recipe independent of key order', () => {
    expect(recipeHash({ a: 1, b: [2, 3] })).toBe(recipeHash({ b: [2, 3], a: 1 }));
    expect(recipeHash({ a: 1, b: [2, 3] })).not.toBe(recipeHash({ a: 1, b: [3, 2] }));
  });

  it('gives the Kubernetes entry with kube-scheduler a key of its own', () => {
    // The key of the three-binary entry other checkouts may still use had no recipe part.
    const recipe = kubernetesRecipe('1.37.2');
    const key = cacheKey({ ...base, recipe: recipe.recipe });
    expect(key).not.toBe('kubernetes-v1.37.2-go1.26.8-linux-amd64');
    expect(recipe.files).toContain('bin/kube-scheduler');
  });
});

describe('resolveCacheRoot', () => {
  it('prefers K_TESTENV_CACHE, then XDG_CACHE_HOME, then ~/.cache', () => {
    expect(resolveCacheRoot({ K_TESTENV_CACHE: '/c', XDG_CACHE_HOME: '/x' }, '/home/u')).toBe('/c');
    expect(resolveCacheRoot({ XDG_CACHE_HOME: '/x' }, '/home/u')).toBe('/x/k-testenv');
    expect(resolveCacheRoot({}, '/home/u')).toBe('/home/u/.cache/k-testenv');
    expect(resolveCacheRoot({ K_TESTENV_CACHE: '', XDG_CACHE_HOME: '' }, '/home/u')).toBe(
      '/home/u/.cache/k-testenv',
    );
  });
});

describe('cacheEntryLayout', () => {
  it('keeps the lock beside the entry, not inside it (the entry is swapped whole)', () => {
    const layout = cacheEntryLayout('/c', 'key');
    expect(layout).toMatchObject({
      entryDir: '/c/key',
      binDir: '/c/key/bin',
      stampPath: '/c/key/stamp.json',
      lockPath: '/c/key.lock',
    });
  });
});
