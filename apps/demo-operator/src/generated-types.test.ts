import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const appRoot = path.resolve(import.meta.dirname, '..');
const run = (args: string[]) =>
  promisify(execFile)(process.execPath, [kGen, ...args], { cwd: appRoot }).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      output: error.stdout + error.stderr,
    }),
  );

const kGen = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@k/codegen/package.json')),
  'bin/k-gen.mjs',
);

describe('the generated WebApp types', () => {
  it('are what k-gen makes of deploy/crd.yaml today (npm run generate -w @k/demo-operator)', async () => {
    const result = await run(['crd', 'deploy/crd.yaml', '--out', 'src/generated', '--check']);
    expect(result.output).toMatch(/up to date/);
    expect(result.code).toBe(0);
  }, 60_000);

  it('fail that check once the CRD changes', async () => {
    const directory = await mkdtemp(path.join(tmpdir(), 'demo-operator-crd-'));
    try {
      const crd = await readFile(path.join(appRoot, 'deploy/crd.yaml'), 'utf8');
      const changed = path.join(directory, 'crd.yaml');
      await writeFile(changed, crd.replace('Image is the container image', 'Image is the image'));
      const result = await run(['crd', changed, '--out', 'src/generated', '--check']);
      expect(result.code).toBe(1);
      expect(result.output).toMatch(/web-app-v1alpha1\.ts/);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }, 60_000);
});
