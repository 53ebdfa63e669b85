import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureRuntime, RuntimeError } from './index.js';
import { cacheDirectory, installRuntime, redact } from './install.js';
import { runtimeSpec } from './pins.js';
import { fakeRuntime, temporaryDirectory } from './test-fixtures.js';

const removals: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const remove of removals.splice(0)) await remove();
});

async function scratch(prefix: string): Promise<string> {
  const { directory, remove } = await temporaryDirectory(prefix);
  removals.push(remove);
  return directory;
}

describe('cacheDirectory', () => {
  it('is K_RUNTIMES_CACHE, else XDG_CACHE_HOME/k-runtimes, else ~/.cache/k-runtimes', () => {
    expect(cacheDirectory({ K_RUNTIMES_CACHE: '/c', XDG_CACHE_HOME: '/x' }, 0)).toBe('/c');
    expect(cacheDirectory({ XDG_CACHE_HOME: '/x' }, 0)).toBe(path.join('/x', 'k-runtimes'));
    expect(cacheDirectory({}, 1000)).toMatch(/[/\\]\.cache[/\\]k-runtimes$/);
  });

  it('is /var/cache/k-runtimes for root, whose home nobody else may enter', () => {
    expect(cacheDirectory({}, 0)).toBe('/var/cache/k-runtimes');
  });
});

describe('ensureRuntime', () => {
  it('installs deno from the registry into an empty cache, verified, and finds it there next time', async () => {
    const cache = await scratch('deno');
    const runtime = await ensureRuntime('deno', { cacheDirectory: cache });
    expect(runtime).toMatchObject({ name: 'deno', version: '2.9.6' });
    expect(runtime.executable.startsWith(path.join(cache, 'deno-2.9.6') + path.sep)).toBe(true);
    expect(runtime.binDir).toBe(path.dirname(runtime.executable));
    expect(execFileSync(runtime.executable, ['--version'], { encoding: 'utf8' })).toMatch(
      /^deno 2\.9\.6 /,
    );
    expect(await readdir(cache)).toEqual(['deno-2.9.6']);

    // From the cache: no npm (none on this PATH) is needed.
    await expect(
      installRuntime(runtimeSpec('deno'), { cacheDirectory: cache, env: { PATH: '/nonexistent' } }),
    ).resolves.toEqual(runtime);
  });

  it('rejects an unknown name, naming it and the known ones', async () => {
    const error: unknown = await ensureRuntime('node@20').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RuntimeError);
    expect(error).toMatchObject({ code: 'K_RUNTIMES_UNKNOWN', runtime: 'node@20' });
    expect((error as Error).message).toContain('node@22, node@24, node@26, bun, deno');
  });

  it('names the runtime and version when the registry install fails, without the credentials', async () => {
    const cache = await scratch('refused');
    const npmCache = await scratch('npm-cache');
    const error: unknown = await ensureRuntime('bun', {
      cacheDirectory: cache,
      env: {
        ...process.env,
        // Nothing listens on port 9 (discard): the registry refuses every request.
        npm_config_registry: 'http://someone:s3cr3t-pass@127.0.0.1:9/',
        npm_config_fetch_retries: '0',
        npm_config_cache: npmCache,
      },
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RuntimeError);
    expect(error).toMatchObject({
      code: 'K_RUNTIMES_INSTALL_FAILED',
      runtime: 'bun',
      version: '1.4.5',
    });
    const message = (error as Error).message;
    expect(message).toMatch(/^could not install bun 1\.4\.5 \(@oven\/bun-[a-z0-9-]+@1\.4\.5\)/);
    expect(message).toContain('npm install exited with code');
    expect(message).not.toContain('s3cr3t-pass');
    // Nothing half-installed is left for the next call to trust.
    expect(await readdir(cache)).toEqual([]);
  });
});

describe('installRuntime', () => {
  it('lets concurrent installs race: the first rename wins and every caller gets its folder', async () => {
    const directory = await scratch('race');
    const spec = await fakeRuntime(directory, 'echo fake 1.2.3');
    const cache = path.join(directory, 'cache');
    const started: string[] = [];
    const log = (line: string) => started.push(line);
    const results = await Promise.all(
      [1, 2, 3].map(() => installRuntime(spec, { cacheDirectory: cache, log })),
    );
    // All three installed (none saw a finished folder), two renames lost, and nobody failed.
    expect(started).toHaveLength(3);
    const expected = path.join(cache, 'fake-1.2.3', 'node_modules', 'fake-runtime', 'bin', 'fake');
    expect(results.map((result) => result.executable)).toEqual([expected, expected, expected]);
    expect(await readdir(cache)).toEqual(['fake-1.2.3']);
    expect(execFileSync(expected, ['--version'], { encoding: 'utf8' })).toBe('fake 1.2.3\n');
  });

  it('fails naming the runtime and version when the installed binary does not run', async () => {
    const directory = await scratch('broken');
    const spec = await fakeRuntime(directory, 'echo "cannot execute" >&2; exit 126');
    const cache = path.join(directory, 'cache');
    const error: unknown = await installRuntime(spec, { cacheDirectory: cache }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(RuntimeError);
    expect(error).toMatchObject({ code: 'K_RUNTIMES_NOT_RUNNABLE', runtime: 'fake' });
    expect((error as Error).message).toMatch(
      /^fake 1\.2\.3 \(.*fake-runtime-1\.2\.3\.tgz\) was installed but its binary bin\/fake does not run as fake 1\.2\.3: .*cannot execute/,
    );
    expect(await readdir(cache)).toEqual([]);
  });

  it('fails when the binary runs but is another version', async () => {
    const directory = await scratch('other');
    const spec = await fakeRuntime(directory, 'echo fake 9.9.9');
    const error: unknown = await installRuntime(spec, {
      cacheDirectory: path.join(directory, 'cache'),
    }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'K_RUNTIMES_NOT_RUNNABLE', version: '1.2.3' });
    expect((error as Error).message).toContain('it printed "fake 9.9.9"');
  });

  it('refuses a final folder that is not a complete install instead of using it', async () => {
    const directory = await scratch('blocked');
    const spec = await fakeRuntime(directory, 'echo fake 1.2.3');
    const cache = path.join(directory, 'cache');
    await mkdir(path.join(cache, 'fake-1.2.3', 'leftover'), { recursive: true });
    const error: unknown = await installRuntime(spec, { cacheDirectory: cache }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ code: 'K_RUNTIMES_INSTALL_FAILED', runtime: 'fake' });
    expect((error as Error).message).toContain('is not a complete install (remove it)');
    expect(existsSync(path.join(cache, 'fake-1.2.3', 'k-runtimes.json'))).toBe(false);
  });
});

describe('redact', () => {
  it('removes user info, auth settings and tokens', () => {
    const text = redact(
      'GET https://me:pw@registry.invalid/x //host/:_authToken=abc authorization: Bearer xyz npm_abcdefghijklmnopqrstuvwx',
    );
    expect(text).not.toMatch(/pw@|abc\b|xyz|npm_abcdefghij/);
  });
});
