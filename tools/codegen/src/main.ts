import { parseArgs } from 'node:util';
import { staleFiles, writeGeneratedFiles } from '@k/codegen';
import { KUBERNETES_VERSION, startControlPlane, stderrProgress } from '@k/testenv';
import { BUILTIN_OWNED_DIRECTORIES, builtinFiles } from './builtin/builtin-files.js';
import { writeProtobufFields } from './builtin/protobuf-fields-program.js';
import { REPOSITORY_ROOT } from './repository-root.js';
import { fetchSnapshot } from './snapshot/fetch-snapshot.js';
import { writeSnapshot } from './snapshot/snapshot-files.js';

/** USAGE is what `npm run codegen -- --help` prints. */
const USAGE = `usage: npm run codegen -- [--refresh [--kubeconfig=PATH] [--context=NAME]] [--check]

regenerate packages/clientset/src/generated (and @k/clientset's exports) from the committed snapshot
  --refresh     first fetch a new snapshot (discovery + OpenAPI v3) from a control plane:
                the one of --kubeconfig, else a fresh one started by @k/testenv; and the
                protobuf field table from the release's Go types (go run protobuf-fields)
  --check       write nothing; exit 1 when a generated file differs (stale)

Typed clients for CustomResourceDefinitions: k-gen crd (@k/codegen), see npx k-gen --help.
`;

/** BuiltinArguments are the parsed flags of the builtin generator's command line. */
export interface BuiltinArguments {
  refresh: boolean;
  check: boolean;
  help: boolean;
  kubeconfig?: string | undefined;
  context?: string | undefined;
}

/** parseBuiltinArguments reads `argv` (`--key=value` or `--key value`); unknown flags and positionals are errors. */
export function parseBuiltinArguments(argv: readonly string[]): BuiltinArguments {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      refresh: { type: 'boolean' },
      check: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      kubeconfig: { type: 'string' },
      context: { type: 'string' },
    },
  });
  return {
    refresh: values.refresh ?? false,
    check: values.check ?? false,
    help: values.help ?? false,
    kubeconfig: values.kubeconfig,
    context: values.context,
  };
}

async function refresh(options: BuiltinArguments): Promise<void> {
  const onProgress = (message: string) => process.stderr.write(`[codegen] ${message}\n`);
  if (options.kubeconfig) {
    const snapshot = await fetchSnapshot({
      kubeconfigPath: options.kubeconfig,
      context: options.context,
      onProgress,
    });
    onProgress(`snapshot written to ${await writeSnapshot(snapshot)}`);
    return;
  }
  const plane = await startControlPlane({ onProgress: stderrProgress });
  try {
    const snapshot = await fetchSnapshot({ kubeconfigPath: plane.kubeconfigPath, onProgress });
    if (snapshot.version !== KUBERNETES_VERSION) {
      throw new Error(
        `the control plane runs ${snapshot.version}, not the pinned ${KUBERNETES_VERSION}`,
      );
    }
    onProgress(`snapshot written to ${await writeSnapshot(snapshot)}`);
  } finally {
    await plane.stop();
  }
}

/**
 * main runs the builtin generator with `argv` (without node and the script) and resolves with the
 * exit code: 0 done, 1 failed or (with `--check`) stale, 2 wrong usage.
 */
export async function main(argv: readonly string[]): Promise<number> {
  let options: BuiltinArguments;
  try {
    options = parseBuiltinArguments(argv);
  } catch (error) {
    process.stderr.write(`codegen: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  try {
    if (options.refresh) {
      await refresh(options);
      // The protobuf field table comes from the Go types of the same release, not the server.
      const path = await writeProtobufFields(KUBERNETES_VERSION);
      process.stderr.write(`[codegen] protobuf field table written to ${path}\n`);
    }
    const files = await builtinFiles();
    if (options.check) {
      const stale = await staleFiles(files, BUILTIN_OWNED_DIRECTORIES, REPOSITORY_ROOT);
      for (const path of stale) process.stderr.write(`codegen: stale: ${path}\n`);
      return stale.length === 0 ? 0 : 1;
    }
    const count = await writeGeneratedFiles(files, BUILTIN_OWNED_DIRECTORIES, REPOSITORY_ROOT);
    process.stderr.write(`[codegen] wrote ${count} files\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`codegen: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
