import { describe, expect, it } from 'vitest';
import { cacheEntryLayout, cacheKey, resolveCacheRoot } from './cache-layout.js';

describe('cacheKey', () => {
  it('names Kubernetes version, Go version and platform', () => {
    expect(
      cacheKey({
        kubernetesVersion: '1.37.2',
        goVersion: 'go1.26.8',
        goos: 'linux',
        goarch: 'amd64',
      }),
    ).toBe('kubernetes-v1.37.2-go1.26.8-linux-amd64');
  });

  it('differs when any part differs and stays a safe file name', () => {
    const base = {
      kubernetesVersion: '1.37.2',
      goVersion: 'go1.26.8',
      goos: 'linux',
      goarch: 'amd64',
    };
    const keys = new Set([
      cacheKey(base),
      cacheKey({ ...base, kubernetesVersion: '1.36.5' }),
      cacheKey({ ...base, goVersion: 'go1.26.9' }),
      cacheKey({ ...base, goarch: 'arm64' }),
      cacheKey({ ...base, goos: 'darwin' }),
    ]);
    expect(keys.size).toBe(5);
    expect(cacheKey({ ...base, goVersion: 'go1.27rc1 X:boringcrypto' })).toMatch(
      /^[A-Za-z0-9._-]+$/,
    );
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
