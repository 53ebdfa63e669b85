import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExecCredentialFileCache } from './exec-credential-file-cache.js';

describe('ExecCredentialFileCache', () => {
  let root: string;
  let cache: ExecCredentialFileCache;
  const key = ExecCredentialFileCache.keyFor({ exec: 'x' });
  const credentials = {
    authorization: 'Bearer secret-token',
    expiresAt: new Date('2030-01-01T00:00:00Z'),
  };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'k-exec-cache-'));
    cache = new ExecCredentialFileCache(join(root, 'cache'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('keys are sha256 hex and differ with the material', () => {
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(ExecCredentialFileCache.keyFor({ exec: 'y' })).not.toBe(key);
  });

  it('writes atomically with mode 0600 in a 0700 directory and reads it back', async () => {
    await cache.write(key, credentials);
    expect(statSync(cache.pathFor(key)).mode & 0o777).toBe(0o600);
    expect(statSync(cache.directory).mode & 0o777).toBe(0o700);
    expect(readdirSync(cache.directory)).toEqual([`${key}.json`]);
    expect(await cache.read(key)).toEqual(credentials);
  });

  it('stores client certificates', async () => {
    const pair = { certificate: 'CERT', key: 'KEY' };
    await cache.write(key, { clientCertificate: pair, expiresAt: credentials.expiresAt });
    expect(await cache.read(key)).toEqual({
      clientCertificate: pair,
      expiresAt: credentials.expiresAt,
    });
  });

  it('does not store credentials without an expiry', async () => {
    await cache.write(key, { authorization: 'Bearer forever' });
    expect(await cache.read(key)).toBeUndefined();
  });

  it('ignores corrupt, foreign-format and world-readable files', async () => {
    await cache.write(key, credentials);
    const path = cache.pathFor(key);
    writeFileSync(path, '{not json', { mode: 0o600 });
    expect(await cache.read(key)).toBeUndefined();
    writeFileSync(path, JSON.stringify({ format: 99, expiresAt: '2030-01-01T00:00:00Z' }));
    expect(await cache.read(key)).toBeUndefined();
    writeFileSync(
      path,
      JSON.stringify({ format: 1, expiresAt: 'soon', authorization: 'Bearer x' }),
    );
    expect(await cache.read(key)).toBeUndefined();
    await cache.write(key, credentials);
    chmodSync(path, 0o644);
    expect(await cache.read(key)).toBeUndefined();
    // A corrupt entry is replaced by the next write.
    writeFileSync(path, 'garbage', { mode: 0o600 });
    await cache.write(key, credentials);
    expect(await cache.read(key)).toEqual(credentials);
    expect(readFileSync(path, 'utf8')).toContain('"format":1');
  });

  it('delete removes only the rejected credential', async () => {
    await cache.write(key, credentials);
    await cache.delete(key, { authorization: 'Bearer something-else' });
    expect(await cache.read(key)).toEqual(credentials);
    await cache.delete(key, { authorization: 'Bearer secret-token' });
    expect(await cache.read(key)).toBeUndefined();
  });

  it('swallows write failures (the cache is an optimisation)', async () => {
    writeFileSync(join(root, 'file'), '');
    const broken = new ExecCredentialFileCache(join(root, 'file', 'sub'));
    await expect(broken.write(key, credentials)).resolves.toBeUndefined();
    expect(await broken.read(key)).toBeUndefined();
  });
});
