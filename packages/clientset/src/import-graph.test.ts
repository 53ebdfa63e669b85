import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const source = import.meta.dirname;

async function sources(): Promise<string[]> {
  const entries = await readdir(source, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => !/\.test(-d)?\.ts$/.test(path) && !path.includes('__fixtures__'));
}

// A static import of a value: `import { x } from 'm'` or `import x from 'm'` (not `import type`).
// @k/rest (and through it @k/transport and undici) is what every clientset sends through, so it
// is imported as usual (docs/decisions/0010); the kubeconfig readers, yaml and tsyringe are not.
const VALUE_IMPORT =
  /^(?:import|export) (?!type\b)[^;]*? from '(@k\/config|@k\/config\/yaml-guards|tsyringe|yaml)'/gm;

describe('the import graph of @k/clientset', () => {
  it('loads the kubeconfig readers, yaml and tsyringe only when used', async () => {
    const found: string[] = [];
    for (const path of await sources()) {
      const text = await readFile(path, 'utf8');
      for (const match of text.matchAll(VALUE_IMPORT))
        found.push(`${relative(source, path)}: ${match[1]}`);
    }
    expect(found, 'use `import type`, or import() where it is used').toEqual([]);
  });
});
