import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'tsup';
import * as realYaml from 'yaml';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the shared build preset is a root file, not a project
import { bundledYamlPlugin } from '../../../tsup.shared.js';

// @k/config builds yaml in (docs/decisions/0015): the copy its dist carries is made by
// bundledYamlPlugin from yaml's ESM build. Here that copy is built the same way and held to the
// yaml package's Node build, which the sources (and every test of them) use.

let directory: string;
let bundled: typeof realYaml;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'k-bundled-yaml-'));
  await writeFile(join(directory, 'entry.ts'), "export * from 'yaml';\n");
  await build({
    entry: { yaml: join(directory, 'entry.ts') },
    outDir: join(directory, 'dist'),
    format: ['esm'],
    platform: 'node',
    target: 'node22',
    noExternal: ['yaml'],
    esbuildPlugins: [bundledYamlPlugin()],
    silent: true,
    config: false,
  });
  bundled = (await import(
    pathToFileURL(join(directory, 'dist', 'yaml.js')).href
  )) as typeof realYaml;
}, 60_000);

afterAll(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
});

describe('the yaml copy @k/config builds in', () => {
  it('is one file that imports no yaml module, with the licence beside it', async () => {
    const code = await readFile(join(directory, 'dist', 'yaml.js'), 'utf8');
    expect(code).not.toMatch(/from ["']yaml["']|require\(["']yaml["']\)/);
    expect(code).toContain('node_modules/yaml/browser/dist/');
    const licence = await readFile(join(directory, 'dist', 'yaml.LICENSE.txt'), 'utf8');
    const { version } = createRequire(import.meta.url)('yaml/package.json') as { version: string };
    expect(licence).toContain(`contains yaml ${version} `);
    expect(licence).toContain('Copyright Eemeli Aro');
  });

  it('reads !!binary as the Node build does: a Buffer, lenient base64', () => {
    for (const text of [
      'b: !!binary aGVsbG8=',
      'b: !!binary aGVs bG8=!',
      'b: !!binary |\n  aGVs\n  bG8=',
    ]) {
      const ours = bundled.parse(text, { version: '1.1' }) as { b: Uint8Array };
      const theirs = realYaml.parse(text, { version: '1.1' }) as { b: Uint8Array };
      expect(Buffer.isBuffer(ours.b), text).toBe(true);
      expect(Buffer.from(ours.b).toString('latin1'), text).toBe(
        Buffer.from(theirs.b).toString('latin1'),
      );
    }
  });

  it('writes !!binary as the Node build does, for Buffers and other byte arrays', () => {
    const bytes = new Uint8Array([0, 1, 2, 250, 251, 252, 253, 254, 255]);
    for (const value of [Buffer.from('hello'), bytes, bytes.subarray(3)]) {
      expect(bundled.stringify({ b: value }, { version: '1.1' })).toBe(
        realYaml.stringify({ b: value }, { version: '1.1' }),
      );
    }
  });

  it('sends warnings through process.emitWarning, as the Node build does', () => {
    const emitWarning = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      // A collection as a key of a plain JS object: yaml warns that it is stringified.
      const text = '? [a, b]\n: 1\n';
      bundled.parse(text);
      const ours = emitWarning.mock.calls.map(([warning]) => String(warning));
      emitWarning.mockClear();
      realYaml.parse(text);
      const theirs = emitWarning.mock.calls.map(([warning]) => String(warning));
      expect(ours).toHaveLength(1);
      expect(ours).toEqual(theirs);
    } finally {
      emitWarning.mockRestore();
    }
  });

  it('makes nodes the yaml package recognises, and recognises the yaml package’s nodes', () => {
    const text = 'base: &b { x: 1 }\nlist: [ *b, *b ]\n';
    for (const [maker, checker] of [
      [bundled, realYaml],
      [realYaml, bundled],
    ] as const) {
      const document = maker.parseDocument(text);
      expect(checker.isDocument(document)).toBe(true);
      expect(checker.isMap(document.contents)).toBe(true);
      const kinds: string[] = [];
      checker.visit(document, {
        Alias: () => void kinds.push('alias'),
        Map: () => void kinds.push('map'),
        Seq: () => void kinds.push('seq'),
        Scalar: () => void kinds.push('scalar'),
      });
      expect(kinds).toEqual([
        'map',
        'scalar',
        'map',
        'scalar',
        'scalar',
        'scalar',
        'seq',
        'alias',
        'alias',
      ]);
      expect(checker.stringify(document)).toBe(text);
      expect(document.toJS()).toEqual({ base: { x: 1 }, list: [{ x: 1 }, { x: 1 }] });
    }
  });
});
