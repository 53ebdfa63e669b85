import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateCrdClients, parseCrds, staleFiles } from '@k/codegen';
import { describe, expect, it } from 'vitest';
import { BUILTIN_OWNED_DIRECTORIES, builtinFiles } from './builtin/builtin-files.js';
import { REPOSITORY_ROOT } from './repository-root.js';

const STALE_HINT = 'generated code is stale: run `npm run codegen` and commit the result';

describe('the committed generated code', () => {
  it('is what the committed snapshot generates (packages/clientset/src/generated and its exports)', async () => {
    const files = await builtinFiles();
    expect(await staleFiles(files, BUILTIN_OWNED_DIRECTORIES, REPOSITORY_ROOT), STALE_HINT).toEqual(
      [],
    );
  });

  it('is what k-gen crd generates for the e2e Widget CRD', async () => {
    const directory = 'packages/clientset/e2e';
    const input = join(REPOSITORY_ROOT, directory, 'fixtures', 'widget-crd.yaml');
    const files = generateCrdClients(parseCrds(await readFile(input, 'utf8'), input), {
      outDirectory: `${directory}/generated`,
      source: 'widget-crd.yaml',
    });
    expect(
      await staleFiles(files, [`${directory}/generated`], REPOSITORY_ROOT),
      'run `cd packages/clientset/e2e && npx k-gen crd fixtures/widget-crd.yaml --out generated`',
    ).toEqual([]);
  });
});
