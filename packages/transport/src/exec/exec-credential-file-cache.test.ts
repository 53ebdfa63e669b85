import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
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

  describe('refuses unsafe places (the SSH rule: owned by this user, not writable by others)', () => {
    const warnings = () => {
      const seen: string[] = [];
      const spy = vi.spyOn(process, 'emitWarning').mockImplementation((warning) => {
        seen.push(String(warning));
      });
      return { seen, spy };
    };

    it('ignores a directory that group or others may write, with one warning', async () => {
      await cache.write(key, credentials);
      const { seen } = warnings();
      for (const mode of [0o777, 0o770, 0o702]) {
        chmodSync(cache.directory, mode);
        expect(await cache.read(key)).toBeUndefined();
      }
      chmodSync(cache.directory, 0o755);
      expect(await cache.read(key)).toEqual(credentials);
      chmodSync(cache.directory, 0o777);
      await cache.write(ExecCredentialFileCache.keyFor({ exec: 'other' }), credentials);
      expect(readdirSync(cache.directory)).toEqual([`${key}.json`]);
      expect(seen).toEqual([
        `exec credential cache ${cache.directory} is not used: it is writable by group or others`,
      ]);
    });

    it('ignores a directory or file owned by another user', async () => {
      await cache.write(key, credentials);
      const { seen } = warnings();
      const someoneElse = (process.getuid?.() ?? 0) + 1;
      const foreign = new ExecCredentialFileCache(cache.directory, { userId: someoneElse });
      expect(await foreign.read(key)).toBeUndefined();
      expect(seen).toEqual([
        `exec credential cache ${cache.directory} is not used: it is not owned by user ${someoneElse}`,
      ]);
    });

    it('never blocks on a FIFO in place of a cache file, and replaces it on write', async () => {
      await cache.write(key, credentials);
      rmSync(cache.pathFor(key));
      execFileSync('mkfifo', ['-m', '600', cache.pathFor(key)]);
      expect(await cache.read(key)).toBeUndefined();
      expect(await cache.read(key)).toBeUndefined();
      await cache.write(key, credentials);
      expect(await cache.read(key)).toEqual(credentials);
    });

    it('does not follow a symbolic link in place of a cache file', async () => {
      mkdirSync(cache.directory, { mode: 0o700 });
      const elsewhere = join(root, 'elsewhere.json');
      writeFileSync(
        elsewhere,
        JSON.stringify({ format: 1, expiresAt: '2030-01-01T00:00:00Z', authorization: 'Bearer x' }),
        { mode: 0o600 },
      );
      symlinkSync(elsewhere, cache.pathFor(key));
      expect(await cache.read(key)).toBeUndefined();
      symlinkSync('/dev/zero', cache.pathFor(ExecCredentialFileCache.keyFor({ exec: 'zero' })));
      expect(await cache.read(ExecCredentialFileCache.keyFor({ exec: 'zero' }))).toBeUndefined();
    });
  });
});
