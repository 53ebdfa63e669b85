import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KUBERNETES_VERSION } from '@k/testenv';
import type { GeneratedFiles } from '@k/codegen';
import { REPOSITORY_ROOT } from '../repository-root.js';
import type { Snapshot } from '../snapshot/fetch-snapshot.js';
import { readSnapshot } from '../snapshot/snapshot-files.js';
import { PROTOBUF_SCHEMA_MODULE, protobufSchemaModule } from './protobuf-schema-file.js';
import {
  CLIENTSET_DIRECTORY,
  GENERATED_DIRECTORY,
  generateBuiltin,
  packageExports,
} from './generate-builtin.js';

/** BUILTIN_OWNED_DIRECTORIES are the directories the builtin generator replaces entirely. */
export const BUILTIN_OWNED_DIRECTORIES: readonly string[] = [GENERATED_DIRECTORY];

/** PACKAGE_MANIFEST is @k/clientset's package.json, whose `exports` the generator writes. */
const PACKAGE_MANIFEST = `${CLIENTSET_DIRECTORY}/package.json`;

/**
 * builtinFiles returns every file the builtin generator owns for `snapshot` (default: the committed
 * snapshot of the pinned Kubernetes version): the `src/generated` tree and @k/clientset's
 * package.json with its `exports` map regenerated (every other field kept as it is on disk).
 */
export async function builtinFiles(
  snapshot?: Snapshot,
  root: string = REPOSITORY_ROOT,
): Promise<GeneratedFiles> {
  const output = generateBuiltin(snapshot ?? (await readSnapshot(KUBERNETES_VERSION)));
  const files = new Map(output.files);
  const manifest = JSON.parse(await readFile(join(root, PACKAGE_MANIFEST), 'utf8')) as Record<
    string,
    unknown
  >;
  manifest.exports = packageExports(output.modules);
  files.set(PACKAGE_MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
  files.set(PROTOBUF_SCHEMA_MODULE, await protobufSchemaModule(KUBERNETES_VERSION));
  return files;
}
