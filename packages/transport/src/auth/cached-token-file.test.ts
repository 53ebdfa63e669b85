import { describe, expect, it, vi } from 'vitest';
import { CachedTokenFile } from './cached-token-file.js';

function fakeFile(initial: string | Error) {
  let content: string | Error = initial;
  const readFile = vi.fn(() =>
    content instanceof Error ? Promise.reject(content) : Promise.resolve(content),
  );
  return {
    readFile,
    set(value: string | Error) {
      content = value;
    },
  };
}

describe('CachedTokenFile (fake clock)', () => {
  it('re-reads only when the read is older than the interval minus the leeway (B1, B2)', async () => {
    let now = 0;
    const file = fakeFile('token-1\n');
    const cache = new CachedTokenFile('/token', { now: () => now, readFile: file.readFile });
    expect(await cache.token()).toBe('token-1');
    file.set('token-2');
    now = 49_999;
    expect(await cache.token()).toBe('token-1');
    expect(file.readFile).toHaveBeenCalledTimes(1);
    now = 50_000;
    expect(await cache.token()).toBe('token-2');
    expect(file.readFile).toHaveBeenCalledTimes(2);
  });

  it('honours an injected interval (no leeway unless given)', async () => {
    let now = 0;
    const file = fakeFile('a');
    const cache = new CachedTokenFile('/token', {
      now: () => now,
      readFile: file.readFile,
      refreshIntervalMs: 1_000,
    });
    await cache.token();
    file.set('b');
    now = 999;
    expect(await cache.token()).toBe('a');
    now = 1_000;
    expect(await cache.token()).toBe('b');
  });

  it('keeps the last good token when a re-read fails or finds the file empty', async () => {
    let now = 0;
    const file = fakeFile('good');
    const cache = new CachedTokenFile('/token', { now: () => now, readFile: file.readFile });
    await cache.token();
    file.set(Object.assign(new Error('gone'), { code: 'ENOENT' }));
    now = 60_000;
    expect(await cache.token()).toBe('good');
    file.set('   \n');
    now = 120_000;
    expect(await cache.token()).toBe('good');
    file.set('rotated');
    expect(await cache.token()).toBe('rotated');
  });

  it('fails without ever showing a token when nothing was ever read (B3)', async () => {
    const missing = new CachedTokenFile('/var/run/token', {
      readFile: () => Promise.reject(Object.assign(new Error('secret-ish'), { code: 'ENOENT' })),
    });
    await expect(missing.token()).rejects.toMatchObject({
      code: 'ERR_TRANSPORT_FILE_READ',
      message: 'failed to read token file "/var/run/token": ENOENT',
      path: '/var/run/token',
    });
    const empty = new CachedTokenFile('/var/run/token', { readFile: () => Promise.resolve(' \n') });
    await expect(empty.token()).rejects.toThrow('read empty token from file "/var/run/token"');
  });

  it('shares one read between concurrent callers (single flight)', async () => {
    const file = fakeFile('t');
    const cache = new CachedTokenFile('/token', { readFile: file.readFile });
    const tokens = await Promise.all(Array.from({ length: 50 }, () => cache.token()));
    expect(new Set(tokens)).toEqual(new Set(['t']));
    expect(file.readFile).toHaveBeenCalledTimes(1);
  });
});
