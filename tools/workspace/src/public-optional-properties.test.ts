import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  findOptionalPropertiesWithoutUndefined,
  publicEntryPoints,
} from './public-optional-properties.js';

// Users with `exactOptionalPropertyTypes` pass `T | undefined` values (an unset flag, an
// environment variable) straight into options only when every optional property says
// `?: T | undefined`; otherwise each such field needs a conditional spread. The walk covers
// everything reachable from the published entry points, generated types included.
describe('the public types of the published packages', () => {
  it('are reached from every subpath export', () => {
    const specifiers = publicEntryPoints().map((entryPoint) => entryPoint.specifier);
    expect(specifiers).toEqual(
      expect.arrayContaining([
        '@k/config',
        '@k/transport',
        '@k/rest',
        '@k/clientset',
        '@k/clientset/core/v1',
        '@k/codegen',
        '@k/runtime',
        '@k/envtest',
      ]),
    );
  });

  it('accept undefined for every optional property', () => {
    const findings = findOptionalPropertiesWithoutUndefined(publicEntryPoints()).map(
      (finding) => `${finding.location} ${finding.property}?: ${finding.type}`,
    );
    expect(findings).toEqual([]);
  }, 300_000);
});

describe('findOptionalPropertiesWithoutUndefined', () => {
  const fixtures = path.join(import.meta.dirname, '__fixtures__', 'optional-properties');

  it('reports optional properties that refuse undefined, however they were made optional or reached', () => {
    const findings = findOptionalPropertiesWithoutUndefined(
      [{ specifier: 'fixture', file: path.join(fixtures, 'index.ts') }],
      fixtures,
    ).map((finding) => `${finding.location} ${finding.property}?: ${finding.type}`);
    const location = 'tools/workspace/src/__fixtures__/optional-properties/index.ts';
    expect(findings).toEqual([
      `${location}:5 Written.a?: string`,
      `${location}:11 Optional.b?: made optional by a mapped type (Partial<…>)`,
      `${location}:15 OnlyReturned.c?: number`,
    ]);
  });

  it('fails when an entry point does not type-check, instead of judging nothing', async () => {
    const directory = await mkdtemp(path.join(tmpdir(), 'k-optional-properties-'));
    try {
      const file = path.join(directory, 'index.ts');
      await writeFile(file, "export { Missing } from './nowhere.js';\n");
      expect(() =>
        findOptionalPropertiesWithoutUndefined([{ specifier: 'broken', file }], directory),
      ).toThrow(/do not type-check[\s\S]*nowhere/);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
