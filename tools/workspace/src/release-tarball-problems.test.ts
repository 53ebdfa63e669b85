import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inRange, tarballProblems, type PackageManifest } from './release-tarball-problems.js';

// The checks of `npm run release:check` on small packages written here, one defect each.

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'k-release-tarball-'));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

const MANIFEST: PackageManifest = {
  name: '@k/example',
  version: '0.2.0',
  license: 'Apache-2.0',
  main: './dist/index.cjs',
  types: './dist/index.d.cts',
  exports: {
    '.': {
      '@k/source': './src/index.ts',
      import: { types: './dist/index.d.ts', default: './dist/index.js' },
      require: { types: './dist/index.d.cts', default: './dist/index.cjs' },
    },
    './package.json': './package.json',
  },
  publishConfig: { access: 'public' },
  dependencies: { '@k/config': '^0.2.0', yaml: '^2.0.0' },
};

/** A good package: every file the manifest names, maps that name shipped sources. */
const FILES: Record<string, string> = {
  'package.json': '{}',
  'README.md': '# example\n',
  LICENSE: 'Apache License\n',
  'src/index.ts': 'export const one = 1;\n',
  'dist/index.js': 'const one = 1;\nexport { one };\n//# sourceMappingURL=index.js.map',
  'dist/index.js.map': JSON.stringify({ version: 3, sources: ['../src/index.ts'], mappings: '' }),
  'dist/index.cjs': '"use strict";\nexports.one = 1;\n//# sourceMappingURL=index.cjs.map',
  'dist/index.cjs.map': JSON.stringify({ version: 3, sources: ['index.cjs'], mappings: '' }),
  'dist/index.d.ts': 'export declare const one = 1;\n',
  'dist/index.d.cts': 'export declare const one = 1;\n',
};

const VERSIONS = new Map<string, string | undefined>([
  ['@k/config', '0.2.0'],
  ['@k/test-utils', undefined],
]);

async function problems(
  files: Record<string, string | undefined> = {},
  manifest: Partial<PackageManifest> = {},
): Promise<string[]> {
  const written: string[] = [];
  for (const [file, text] of Object.entries({ ...FILES, ...files })) {
    if (text === undefined) continue;
    await mkdir(path.dirname(path.join(directory, file)), { recursive: true });
    await writeFile(path.join(directory, file), text);
    written.push(file);
  }
  return tarballProblems(
    { directory, manifest: { ...MANIFEST, ...manifest }, files: written },
    VERSIONS,
  );
}

describe('tarballProblems', () => {
  it('finds nothing wrong with a complete package', async () => {
    expect(await problems()).toEqual([]);
  });

  it('wants a README and a LICENSE', async () => {
    expect(await problems({ 'README.md': undefined, LICENSE: undefined })).toEqual([
      '@k/example: README.md is not in the tarball',
      '@k/example: no LICENSE file in the tarball (license: Apache-2.0)',
    ]);
  });

  it('wants the CHANGELOG packed when the package has one', async () => {
    await writeFile(path.join(directory, 'CHANGELOG.md'), '# @k/example\n');
    expect(await problems()).toEqual([
      '@k/example: CHANGELOG.md is not in the tarball (npm packs it only when `files` names it)',
    ]);
    expect(await problems({ 'CHANGELOG.md': '# @k/example\n' })).toEqual([]);
  });

  it('names tests, type tests, fixtures and configuration that were packed', async () => {
    expect(
      await problems({
        'src/index.test.ts': '',
        'src/index.test-d.ts': '',
        'src/__fixtures__/pod.json': '{}',
        'e2e/run.e2e.test.ts': '',
        'tsconfig.json': '{}',
      }),
    ).toEqual([
      '@k/example: src/index.test.ts is a test, which users do not need',
      '@k/example: src/index.test-d.ts is a type test, which users do not need',
      '@k/example: src/__fixtures__/pod.json is a test fixture, which users do not need',
      '@k/example: e2e/run.e2e.test.ts is a test, which users do not need',
      '@k/example: tsconfig.json is a tsconfig, which users do not need',
    ]);
  });

  it('names every manifest target that is not packed', async () => {
    expect(
      await problems({ 'dist/index.d.cts': undefined }, { bin: { 'k-example': 'bin/k.mjs' } }),
    ).toEqual([
      '@k/example: types points to ./dist/index.d.cts, which is not in the tarball',
      '@k/example: bin.k-example points to bin/k.mjs, which is not in the tarball',
      '@k/example: exports[.][require][types] points to ./dist/index.d.cts, which is not in the tarball',
    ]);
  });

  it('wants public access', async () => {
    expect(await problems({}, { publishConfig: undefined })).toEqual([
      '@k/example: publishConfig.access is not "public" (a scoped package is published restricted)',
    ]);
  });

  it('wants workspace dependencies public and in range of their versions', async () => {
    expect(
      await problems(
        {},
        { dependencies: { '@k/config': '^0.1.0' }, peerDependencies: { '@k/test-utils': '*' } },
      ),
    ).toEqual([
      "@k/example: dependencies: @k/config@^0.1.0 does not accept the workspace's 0.2.0",
      '@k/example: peerDependencies names @k/test-utils, which is private',
    ]);
  });

  it('follows every source map to its sources, shipped or carried', async () => {
    expect(
      await problems({
        // tsup's CommonJS maps named the chunk by the build machine's path.
        'dist/index.cjs.map': JSON.stringify({
          version: 3,
          file: '/work/main/packages/example/dist/index.cjs',
          sources: ['/work/main/packages/example/dist/index.cjs', '../src/gone.ts'],
          mappings: '',
        }),
        // A bundled dependency's source is not shipped, but its text is in the map.
        'dist/index.js.map': JSON.stringify({
          version: 3,
          sources: ['../src/index.ts', '../../../node_modules/yaml/dist/index.js'],
          sourcesContent: [null, 'export {};'],
          mappings: '',
        }),
        'dist/other.js': 'export {};\n//# sourceMappingURL=other.js.map',
      }),
    ).toEqual([
      '@k/example: dist/index.cjs.map names its file by an absolute path (/work/main/packages/example/dist/index.cjs)',
      '@k/example: dist/index.cjs.map names a source by an absolute path (/work/main/packages/example/dist/index.cjs)',
      '@k/example: dist/index.cjs.map maps to ../src/gone.ts, which is neither in the tarball nor in the map',
      '@k/example: dist/other.js names the source map other.js.map, not in the tarball',
    ]);
  });
});

describe('inRange', () => {
  it("accepts what npm's ranges accept for the forms the workspace writes", () => {
    expect(inRange('0.2.0', '^0.2.0')).toBe(true);
    expect(inRange('0.2.3', '^0.2.0')).toBe(true);
    expect(inRange('0.2.0', '^0.1.0')).toBe(false);
    expect(inRange('0.0.2', '^0.0.1')).toBe(false);
    expect(inRange('1.4.0', '^1.2.0')).toBe(true);
    expect(inRange('2.0.0', '^1.2.0')).toBe(false);
    expect(inRange('1.2.9', '~1.2.0')).toBe(true);
    expect(inRange('1.3.0', '~1.2.0')).toBe(false);
    expect(inRange('0.1.9', '^0.2.0')).toBe(false);
    expect(inRange('0.2.0', '*')).toBe(true);
    expect(inRange('0.2.0', '0.2.0')).toBe(true);
    expect(inRange('0.2.0', '>=0.1.0')).toBe(false);
  });
});
