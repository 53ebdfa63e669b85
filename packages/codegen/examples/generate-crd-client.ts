/**
 * What `k-gen crd` does, as library calls: parse CRD manifests and generate the typed modules in
 * memory (here printed: each file with the names it exports). `writeGeneratedFiles` writes them;
 * `staleFiles` is the `--check` of CI.
 *
 *   npx tsx packages/codegen/examples/generate-crd-client.ts path/to/crds.yaml
 */
import { readFile } from 'node:fs/promises';
import { generateCrdClients, parseCrds } from '@k/codegen';

async function main(): Promise<void> {
  const file = process.argv[2];
  if (!file) throw new Error('usage: generate-crd-client <crds.yaml>');
  const crds = parseCrds(await readFile(file, 'utf8'), file);
  const files = generateCrdClients(crds, { outDirectory: 'src/generated', source: file });
  for (const [path, text] of files) {
    const exported = [...text.matchAll(/^export (?:interface|const|function|type) (\w+)/gm)].map(
      (match) => match[1],
    );
    console.log(`${path}: ${exported.join(', ')}`);
  }
}

main().catch((error: unknown) => {
  console.error(`generate-crd-client: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
