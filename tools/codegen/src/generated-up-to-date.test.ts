import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_OWNED_DIRECTORIES, builtinFiles } from './builtin/builtin-files.js';
import { generateCrdClients, parseCrds } from './crd/generate-crd.js';
import { REPOSITORY_ROOT, staleFiles } from './generated-files.js';

const STALE_HINT = 'generated code is stale: run `npm run codegen` and commit the result';

describe('the committed generated code', () => {
  it('is what the committed snapshot generates (packages/clientset/src/generated and its exports)', async () => {
    const files = await builtinFiles();
    expect(await staleFiles(files, BUILTIN_OWNED_DIRECTORIES), STALE_HINT).toEqual([]);
  });

  it('is what k-gen crd generates for the e2e Widget CRD', async () => {
    const directory = 'packages/clientset/e2e';
    const input = join(REPOSITORY_ROOT, directory, 'fixtures', 'widget-crd.yaml');
    const files = generateCrdClients(parseCrds(await readFile(input, 'utf8'), input), {
      outDirectory: `${directory}/generated`,
      source: 'widget-crd.yaml',
    });
    expect(
      await staleFiles(files, [`${directory}/generated`]),
      'run `cd packages/clientset/e2e && node ../../../tools/codegen/bin/k-gen.mjs crd fixtures/widget-crd.yaml --out generated`',
    ).toEqual([]);
  });
});
