import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEnvironmentOptions } from '../options.js';
import { findBinaries } from './binaries.js';

// Fake executables: a kube-apiserver that prints its version, an etcd that does nothing. Only
// the resolution is under test here; e2e/environment.e2e.test.ts starts real ones.
let scratch: string;
let assets: string;

async function executable(file: string, body: string): Promise<void> {
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
}

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'k-envtest-binaries-'));
  assets = path.join(scratch, 'assets');
  await mkdir(assets);
  await executable(path.join(assets, 'kube-apiserver'), 'echo "Kubernetes v1.37.2"');
  await executable(path.join(assets, 'etcd'), 'exit 0');
  await executable(path.join(assets, 'kubectl'), 'exit 0');
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

describe('findBinaries', () => {
  it('says where the binaries came from: a directory, KUBEBUILDER_ASSETS or TEST_ASSET_*', async () => {
    const options = (input: Parameters<typeof resolveEnvironmentOptions>[0]) =>
      resolveEnvironmentOptions(input, { K_ENVTEST_CACHE: path.join(scratch, 'cache') });

    const directory = await findBinaries(options({ binaries: { directory: assets } }), {});
    expect(directory.description).toEqual({
      source: 'directory',
      directory: assets,
      kubectl: path.join(assets, 'kubectl'),
    });
    expect(directory.components).toEqual(['etcd', 'kube-apiserver']);
    expect(directory.where).toBe(`the directory ${assets}`);

    const variable = await findBinaries(options({}), { KUBEBUILDER_ASSETS: assets });
    expect(variable.description.source).toBe('KUBEBUILDER_ASSETS');
    expect(variable.where).toBe(`KUBEBUILDER_ASSETS (${assets})`);

    const named = await findBinaries(options({}), {
      TEST_ASSET_KUBE_APISERVER: path.join(assets, 'kube-apiserver'),
      TEST_ASSET_ETCD: path.join(assets, 'etcd'),
    });
    expect(named.description.source).toBe('TEST_ASSET');
    expect(named.where).toContain('the TEST_ASSET_* variables');
  });

  it('names k-envtest’s build command when nothing is found', async () => {
    const error = await findBinaries(
      resolveEnvironmentOptions(
        { binaries: 'cache', build: false },
        { K_ENVTEST_CACHE: path.join(scratch, 'empty-cache') },
      ),
      { PATH: process.env.PATH },
    ).then(
      () => undefined,
      (caught: unknown) => caught as Error,
    );
    expect(error?.message).toContain('npx k-envtest build');
    expect(error?.message).toContain('KUBEBUILDER_ASSETS');
    expect(error?.message).not.toContain('k-testenv build');
  });
});
