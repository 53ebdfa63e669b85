import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishDryRun } from './release-dry-run.js';

// A real npm publishes, dry, two packages of a small workspace written here: one as it should
// be, one whose manifest npm rewrites at publish time (a bin path with `./`, which npm warns
// about and which the packages here had).

let root: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'k-release-dry-run-'));
  const write = async (file: string, text: string) => {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
  };
  await write(
    'package.json',
    JSON.stringify({ name: 'root', private: true, workspaces: ['packages/*'] }),
  );
  for (const [name, bin] of [
    ['good', 'bin/good.mjs'],
    ['dotted', './bin/dotted.mjs'],
  ] as const) {
    await write(
      `packages/${name}/package.json`,
      JSON.stringify({
        name: `@k-dry-run/${name}`,
        version: '1.2.3',
        license: 'Apache-2.0',
        bin: { [name]: bin },
        publishConfig: { access: 'public' },
      }),
    );
    await write(`packages/${name}/bin/${name}.mjs`, '#!/usr/bin/env node\n');
    await write(`packages/${name}/README.md`, `# ${name}\n`);
  }
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('publishDryRun', () => {
  it('reports each package with its files, and nothing wrong with a clean one', async () => {
    const { reports, problems } = await publishDryRun(root, ['packages/good']);
    expect(problems).toEqual([]);
    expect(reports['@k-dry-run/good']).toMatchObject({ name: '@k-dry-run/good', version: '1.2.3' });
    expect(reports['@k-dry-run/good']?.files.map((file) => file.path).sort()).toEqual([
      'README.md',
      'bin/good.mjs',
      'package.json',
    ]);
  });

  it('makes every warning npm prints a problem', async () => {
    const { reports, problems } = await publishDryRun(root, ['packages/good', 'packages/dotted']);
    expect(Object.keys(reports).sort()).toEqual(['@k-dry-run/dotted', '@k-dry-run/good']);
    expect(problems).toContainEqual(
      expect.stringMatching(/^npm: npm warn publish .*bin\[dotted\]/),
    );
  });

  it('makes a failed run a problem', async () => {
    const { problems } = await publishDryRun(root, ['packages/missing']);
    expect(problems).toContainEqual(expect.stringMatching(/^npm publish --dry-run exited [1-9]/));
  });
});
