import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync } from 'node:fs';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeconfigError, KubeError } from '../errors.js';
import type { TempFiles } from '../testing/temp-files.js';
import { createTempFiles } from '../testing/temp-files.js';
import type { LoadedKubeconfig, LoadKubeconfigOptions } from './load-kubeconfig.js';
import { loadKubeconfig } from './load-kubeconfig.js';

// Files that exist but cannot be read, paths that are not files, and bad files among good
// ones, through loadKubeconfig. kubectl's rules: only a missing file in the KUBECONFIG list is
// skipped; anything else that cannot be read or parsed is an error naming that file.

let files: TempFiles;
beforeEach(() => {
  files = createTempFiles();
});
afterEach(() => files.cleanup());

const GOOD = 'apiVersion: v1\nclusters:\n- name: good\n  cluster: {server: https://good}\n';

/** loadError runs loadKubeconfig and returns the KubeconfigError it must throw. */
async function loadError(options: LoadKubeconfigOptions): Promise<KubeconfigError> {
  const error: unknown = await loadKubeconfig(options).then(
    () => expect.fail('expected loadKubeconfig to fail'),
    (reason: unknown) => reason,
  );
  expect(KubeError.isInstance(error) && error instanceof KubeconfigError).toBe(true);
  return error as KubeconfigError;
}

const list = (...paths: string[]) => ({ env: { KUBECONFIG: paths.join(':') } });

describe('paths that are not readable files', () => {
  it('a directory given as the explicit file is an error naming it', async () => {
    const directory = files.path('a-directory');
    mkdirSync(directory);
    const error = await loadError({ explicitPath: directory });
    expect(error.code).toBe('ERR_CONFIG_READ');
    expect(error.message).toBe(`error loading config file "${directory}": is a directory`);
    expect(error.path).toBe(directory);
  });

  it.each(['first', 'last'])('a directory %s in the KUBECONFIG list is an error', async (at) => {
    const directory = files.path('a-directory');
    mkdirSync(directory);
    const good = files.write('good.yaml', GOOD);
    const error = await loadError(at === 'first' ? list(directory, good) : list(good, directory));
    expect(error.code).toBe('ERR_CONFIG_READ');
    expect(error.path).toBe(directory);
  });

  it('a missing explicit file is an error naming the path, as kubectl says it', async () => {
    const missing = files.path('nowhere/config');
    const error = await loadError({ explicitPath: missing });
    expect(error.code).toBe('ERR_CONFIG_READ');
    expect(error.message).toBe(`stat ${missing}: no such file or directory`);
    expect(error.path).toBe(missing);
  });

  it('a dangling symlink is a missing file: an error when explicit, skipped in the list', async () => {
    const dangling = files.path('dangling');
    symlinkSync(files.path('no-target'), dangling);
    expect((await loadError({ explicitPath: dangling })).message).toBe(
      `stat ${dangling}: no such file or directory`,
    );
    const good = files.write('good.yaml', GOOD);
    const loaded = await loadKubeconfig(list(dangling, good));
    expect([...loaded.config.clusters.keys()]).toEqual(['good']);
  });

  it('missing files in the list are skipped, with a warning when none exists', async () => {
    const warnings: string[] = [];
    const options = {
      ...list(files.path('a'), files.path('b')),
      onWarning: (w: string) => warnings.push(w),
    };
    const loaded = await loadKubeconfig(options);
    expect(loaded.files).toEqual([]);
    expect(loaded.config.clusters.size).toBe(0);
    expect(warnings).toEqual([`Config not found: ${files.path('a')}, ${files.path('b')}`]);
  });

  it.each([
    [
      'a symlink loop',
      'loop-a',
      () => {
        symlinkSync(files.path('loop-b'), files.path('loop-a'));
        symlinkSync(files.path('loop-a'), files.path('loop-b'));
      },
    ],
    ['a path through a file', 'good.yaml/child', () => files.write('good.yaml', GOOD)],
  ] as const)('%s is an error naming it, explicit or in the list', async (_, name, setUp) => {
    setUp();
    const path = files.path(name);
    for (const options of [{ explicitPath: path }, list(path, files.write('other.yaml', GOOD))]) {
      const error = await loadError(options);
      expect(error.code).toBe('ERR_CONFIG_READ');
      expect(error.path).toBe(path);
      expect(error.message).toMatch(new RegExp(`^error loading config file "${path}": `));
    }
  });

  it('/dev/null is an empty kubeconfig', async () => {
    const loaded = await loadKubeconfig({ explicitPath: '/dev/null' });
    expect(loaded.config.clusters.size).toBe(0);
  });
});

describe('an unreadable file', () => {
  // chmod 000 does not stop root (CAP_DAC_OVERRIDE). As root, load the file from a child
  // process running as `nobody`; otherwise chmod is enough in this process.
  function loadAsOtherUser(path: string): { code?: string; message?: string; path?: string } {
    const program = `import { loadKubeconfig } from '@k/config';
      const [explicitPath, list] = process.argv.slice(1);
      const results = [];
      for (const options of [{ explicitPath }, { env: { KUBECONFIG: list } }]) {
        try { await loadKubeconfig(options); results.push({}); }
        catch (error) { results.push({ code: error.code, message: error.message, path: error.path }); }
      }
      console.log(JSON.stringify(results));`;
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--conditions=@k/source',
        '--input-type=module',
        '-e',
        program,
        path,
        `${path}:${path}`,
      ],
      {
        uid: 65534,
        gid: 65534,
        encoding: 'utf8',
        timeout: 30_000,
        env: { PATH: process.env.PATH, HOME: '/tmp' },
      },
    );
    expect(child.stderr).toBe('');
    const [explicit, listed] = JSON.parse(child.stdout) as {
      code?: string;
      message?: string;
      path?: string;
    }[];
    expect(listed).toEqual(explicit);
    return explicit!;
  }

  it('is an error naming it, explicit or in the list', async () => {
    chmodSync(files.root, 0o755);
    const path = files.write('unreadable.yaml', GOOD);
    chmodSync(path, 0o000);
    const expected = {
      code: 'ERR_CONFIG_READ',
      message: `error loading config file "${path}": permission denied`,
      path,
    };
    if (process.getuid?.() === 0) {
      expect(loadAsOtherUser(path)).toEqual(expected);
    } else {
      for (const options of [{ explicitPath: path }, list(path)]) {
        expect(await loadError(options)).toMatchObject(expected);
      }
    }
  }, 60_000);
});

describe('bad files among good ones', () => {
  it('a malformed file in the list is an error naming it, without its secret', async () => {
    const good = files.write('good.yaml', GOOD);
    const bad = files.write('bad.yaml', 'users:\n- name: u\n  user:\n    token: *S3CR3T-token\n');
    const error = await loadError(list(good, bad));
    expect(error.code).toBe('ERR_CONFIG_PARSE');
    expect(error.path).toBe(bad);
    expect(error.message).toMatch(new RegExp(`^error loading config file "${bad}": `));
    expect(String(error)).not.toContain('S3CR3T');
  });

  it('a duplicate name is an error naming the file and the name', async () => {
    const duplicate = files.write('dup.yaml', 'contexts:\n- name: twice\n- name: twice\n');
    const error = await loadError(list(files.write('good.yaml', GOOD), duplicate));
    expect(error.code).toBe('ERR_CONFIG_DUPLICATE_NAME');
    expect(error.message).toBe(
      `error loading config file "${duplicate}": duplicate name "twice" in contexts`,
    );
    expect(error).toMatchObject({ path: duplicate, entry: 'twice' });
  });

  it('UTF-16 and UTF-8 files with byte-order marks load and merge', async () => {
    const utf16 = files.write(
      'utf16.yaml',
      Buffer.from(`\ufeff${GOOD}current-context: utf16\n`, 'utf16le'),
    );
    const utf8 = files.write(
      'utf8.yaml',
      `\ufeffclusters:\n- name: second\n  cluster: {server: https://second}\n`,
    );
    const loaded = await loadKubeconfig(list(utf16, utf8));
    expect([...loaded.config.clusters.keys()]).toEqual(['good', 'second']);
    expect(loaded.config.currentContext).toBe('utf16');
  });

  it('any mix of files fails on the first bad one in order, or loads', async () => {
    const kinds = {
      good: (name: string) => files.write(name, GOOD.replaceAll('good', name)),
      empty: (name: string) => files.write(name, ''),
      missing: (name: string) => files.path(name),
      directory: (name: string) => (mkdirSync(files.path(name)), files.path(name)),
      malformed: (name: string) => files.write(name, 'clusters: [\n'),
      binary: (name: string) => files.write(name, new Uint8Array([0xff, 0x00, 0x80, 0x9f])),
      duplicate: (name: string) => files.write(name, 'users: [{name: a}, {name: a}]'),
    };
    type Kind = keyof typeof kinds;
    const failing: Record<Kind, string | undefined> = {
      good: undefined,
      empty: undefined,
      missing: undefined,
      directory: 'ERR_CONFIG_READ',
      malformed: 'ERR_CONFIG_PARSE',
      binary: 'ERR_CONFIG_PARSE',
      duplicate: 'ERR_CONFIG_DUPLICATE_NAME',
    };
    const kind = fc.constantFrom(...(Object.keys(kinds) as Kind[]));
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(kind, { minLength: 1, maxLength: 5 }), async (chosen) => {
        run++;
        const paths = chosen.map((each, index) => kinds[each](`run-${run}-${index}-${each}`));
        const firstBad = chosen.findIndex((each) => failing[each] !== undefined);
        let loaded: LoadedKubeconfig | undefined;
        let error: unknown;
        await loadKubeconfig(list(...paths)).then(
          (value) => (loaded = value),
          (reason: unknown) => (error = reason),
        );
        if (firstBad === -1) {
          const goodNames = chosen.flatMap((each, index) =>
            each === 'good' ? [`run-${run}-${index}-good`] : [],
          );
          expect([...loaded!.config.clusters.keys()]).toEqual(goodNames);
        } else {
          expect(error).toBeInstanceOf(KubeconfigError);
          expect(error).toMatchObject({ code: failing[chosen[firstBad]!], path: paths[firstBad] });
        }
      }),
      { seed: 20_240_601, numRuns: 150 },
    );
  }, 60_000);
});
