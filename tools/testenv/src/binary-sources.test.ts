import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fakeCacheEntry } from './__fixtures__/fake-cache-entry.js';
import { resolveBinaries, type ResolveBinariesOptions } from './binary-sources.js';
import { cacheKey } from './cache-layout.js';
import { ControlPlaneError } from './errors.js';
import { readGoEnvironment } from './go-environment.js';
import { kubernetesRecipe } from './kubernetes-build.js';
import { KUBERNETES_VERSION } from './release.js';

const scratch = await mkdtemp(join(tmpdir(), 'k-testenv-sources-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));

let directories = 0;
/**
 * assetsDir writes a setup-envtest-layout directory whose "binaries" are shell scripts; the
 * kube-apiserver prints `Kubernetes v<version>` for --version, as the real one does.
 */
async function assetsDir(
  names: readonly string[] = ['kube-apiserver', 'etcd'],
  version = KUBERNETES_VERSION,
): Promise<string> {
  const dir = join(scratch, `assets-${directories++}`);
  await mkdir(dir);
  for (const name of names) {
    const body = name === 'kube-apiserver' ? `echo "Kubernetes v${version}"` : `echo ${name}`;
    await writeFile(join(dir, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  }
  return dir;
}

/** The options of a resolution that sees only the given environment and an empty cache. */
function isolated(env: NodeJS.ProcessEnv, extra: ResolveBinariesOptions = {}) {
  return {
    env: { PATH: process.env.PATH, ...env },
    cacheRoot: join(scratch, 'empty-cache'),
    build: false,
    ...extra,
  };
}

async function failure(promise: Promise<unknown>): Promise<ControlPlaneError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!ControlPlaneError.isInstance(error))
    throw new Error(`expected a ControlPlaneError, got ${String(error)}`);
  return error;
}

describe('resolveBinaries', () => {
  it('takes an explicit directory over TEST_ASSET_* and KUBEBUILDER_ASSETS', async () => {
    const [explicit, other] = await Promise.all([assetsDir(), assetsDir()]);
    const binaries = await resolveBinaries(
      isolated(
        { KUBEBUILDER_ASSETS: other, TEST_ASSET_KUBE_APISERVER: join(other, 'kube-apiserver') },
        { binaries: { directory: explicit } },
      ),
    );
    expect(binaries).toMatchObject({
      source: 'directory',
      directory: explicit,
      kubeApiServer: join(explicit, 'kube-apiserver'),
      etcd: join(explicit, 'etcd'),
      kubernetesVersion: KUBERNETES_VERSION,
    });
  });

  it('takes TEST_ASSET_* per binary over KUBEBUILDER_ASSETS', async () => {
    const [assets, apart] = await Promise.all([
      assetsDir(['kube-apiserver', 'etcd', 'kubectl']),
      assetsDir(['kube-apiserver']),
    ]);
    const binaries = await resolveBinaries(
      isolated({
        KUBEBUILDER_ASSETS: assets,
        TEST_ASSET_KUBE_APISERVER: join(apart, 'kube-apiserver'),
      }),
    );
    expect(binaries).toMatchObject({
      source: 'KUBEBUILDER_ASSETS',
      directory: assets,
      kubeApiServer: join(apart, 'kube-apiserver'),
      etcd: join(assets, 'etcd'),
      kubectl: join(assets, 'kubectl'),
    });
  });

  it('lists the components the files allow: a setup-envtest directory has no controllers and no kwok', async () => {
    const plain = await assetsDir(['kube-apiserver', 'etcd', 'kubectl']);
    const plainBinaries = await resolveBinaries(isolated({ KUBEBUILDER_ASSETS: plain }));
    expect(plainBinaries.components).toEqual(['etcd', 'kube-apiserver']);
    expect(plainBinaries.kubeControllerManager).toBeUndefined();
    expect(plainBinaries.kwok).toBeUndefined();

    const withController = await assetsDir(['kube-apiserver', 'etcd', 'kube-controller-manager']);
    expect(
      (await resolveBinaries(isolated({}, { binaries: { directory: withController } }))).components,
    ).toEqual(['etcd', 'kube-apiserver', 'kube-controller-manager']);
  });

  it('with binaries: "cache" ignores KUBEBUILDER_ASSETS and TEST_ASSET_*', async () => {
    const assets = await assetsDir();
    const go = await readGoEnvironment();
    const recipe = kubernetesRecipe(KUBERNETES_VERSION);
    const cacheRoot = join(scratch, 'cache');
    const layout = await fakeCacheEntry(
      cacheRoot,
      cacheKey({ name: recipe.name, version: recipe.version, recipe: recipe.recipe, ...go }),
    );
    const env = { KUBEBUILDER_ASSETS: assets, TEST_ASSET_ETCD: join(assets, 'etcd') };
    const binaries = await resolveBinaries(
      isolated(env, { binaries: 'cache', cacheRoot, kwok: false }),
    );
    expect(binaries).toMatchObject({
      source: 'cache',
      directory: layout.binDir,
      etcd: join(layout.binDir, 'etcd'),
      components: ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'],
    });
    // 'auto' with the same environment takes the variables first.
    expect((await resolveBinaries(isolated(env, { cacheRoot, kwok: false }))).source).toBe(
      'KUBEBUILDER_ASSETS',
    );
    // and the cache when the environment names nothing.
    expect((await resolveBinaries(isolated({}, { cacheRoot, kwok: false }))).source).toBe('cache');
  });

  it('names the given build command when the cache entry is corrupt', async () => {
    const go = await readGoEnvironment();
    const recipe = kubernetesRecipe(KUBERNETES_VERSION);
    const cacheRoot = join(scratch, 'corrupt-cache');
    const layout = await fakeCacheEntry(
      cacheRoot,
      cacheKey({ name: recipe.name, version: recipe.version, recipe: recipe.recipe, ...go }),
    );
    await writeFile(join(layout.binDir, 'etcd'), 'corrupted');
    const error = await failure(
      resolveBinaries(
        isolated(
          {},
          { binaries: 'cache', cacheRoot, kwok: false, buildCommand: 'npx k-envtest build' },
        ),
      ),
    );
    expect(error.code).toBe('CACHE_CORRUPT');
    expect(error.message).toContain('run `k-envtest build` to rebuild it');
  });

  it('builds when the cache is empty and building is allowed (here with a go that cannot download)', async () => {
    const goDir = join(scratch, 'fake-go');
    await mkdir(goDir);
    const go = await readGoEnvironment();
    await writeFile(
      join(goDir, 'go'),
      `#!/bin/sh\nif [ "$1" = env ]; then echo '${JSON.stringify({ GOVERSION: go.goVersion, GOOS: go.goos, GOARCH: go.goarch, GOMODCACHE: '', GOCACHE: '' })}'; exit 0; fi\necho "no network in this test" >&2; exit 1\n`,
      { mode: 0o755 },
    );
    const cacheRoot = join(scratch, 'build-cache');
    const error = await failure(resolveBinaries({ env: { PATH: goDir }, cacheRoot, kwok: false }));
    expect(error.code).toBe('BUILD_FAILED');
    expect(error.step).toBe('download k8s.io/kubernetes');
  });

  it('names what was looked at and both ways out when there is no source', async () => {
    const error = await failure(
      resolveBinaries(isolated({}, { buildCommand: 'npx k-envtest build' })),
    );
    expect(error.code).toBe('BINARIES_MISSING');
    expect(error.message).toContain('TEST_ASSET_KUBE_APISERVER');
    expect(error.message).toContain('KUBEBUILDER_ASSETS (unset)');
    expect(error.message).toContain(join(scratch, 'empty-cache'));
    expect(error.message).toContain('build is false');
    expect(error.message).toContain(
      'set KUBEBUILDER_ASSETS to a directory with kube-apiserver and etcd (`setup-envtest use -p path` prints one)',
    );
    expect(error.message).toContain('install Go 1.26 and run `npx k-envtest build` once');
  });

  it('names the missing etcd and the directory', async () => {
    const dir = await assetsDir(['kube-apiserver']);
    const error = await failure(resolveBinaries(isolated({}, { binaries: { directory: dir } })));
    expect(error.code).toBe('BINARIES_MISSING');
    expect(error.message).toContain(`etcd ${join(dir, 'etcd')} is missing`);
    expect(error.message).toContain(`the directory ${dir}`);
    const fromVariable = await failure(resolveBinaries(isolated({ KUBEBUILDER_ASSETS: dir })));
    expect(fromVariable.message).toContain(`KUBEBUILDER_ASSETS=${dir}`);
  });

  it('refuses a file that is not executable', async () => {
    const dir = await assetsDir();
    await chmod(join(dir, 'etcd'), 0o644);
    const error = await failure(resolveBinaries(isolated({ KUBEBUILDER_ASSETS: dir })));
    expect(error.code).toBe('BINARIES_MISSING');
    expect(error.message).toContain(`etcd ${join(dir, 'etcd')} is not executable`);
  });

  it('refuses a kube-apiserver older than the flags need with UNSUPPORTED_VERSION', async () => {
    const dir = await assetsDir(['kube-apiserver', 'etcd'], '1.20.0');
    const error = await failure(resolveBinaries(isolated({}, { binaries: { directory: dir } })));
    expect(error.code).toBe('UNSUPPORTED_VERSION');
    expect(error.message).toContain('Kubernetes v1.20.0');
    expect(error.message).toContain('v1.27.0 or newer');
  });
});
