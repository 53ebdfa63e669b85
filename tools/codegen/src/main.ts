import { KUBERNETES_VERSION, startControlPlane, stderrProgress } from '@k/testenv';
import { fetchSnapshot } from './snapshot/fetch-snapshot.js';
import { writeSnapshot } from './snapshot/snapshot-files.js';
import { BUILTIN_OWNED_DIRECTORIES, builtinFiles } from './builtin/builtin-files.js';
import { staleFiles, writeGeneratedFiles } from './generated-files.js';
import { generateCrdClients, parseCrds } from './crd/generate-crd.js';
import { readFile } from 'node:fs/promises';
import { basename, relative, resolve } from 'node:path';

const USAGE = `usage: k-gen [builtin] [--refresh [--kubeconfig=PATH] [--context=NAME]] [--check]
       k-gen crd <file.yaml>… [--out=DIR] [--import=SPECIFIER]

builtin (default)  regenerate packages/clientset/src/generated from the committed snapshot
  --refresh        first fetch a new snapshot (discovery + OpenAPI v3) from a control plane:
                   the one of --kubeconfig, else a fresh one started by @k/testenv
  --check          write nothing; exit 1 when a generated file differs (stale)
crd                generate interfaces and a typed client for every served version of the
                   CustomResourceDefinitions in the files
  --out            output directory (default ./generated)
  --import         module the generated client imports the runtime from (default @k/clientset)
`;

/** ParsedArguments are the positional arguments and `--key[=value]` flags of the command line. */
export interface ParsedArguments {
  positional: string[];
  flags: Map<string, string>;
}

/** parseArguments splits `argv` into positionals and flags (`--key=value`, `--key value`, `--flag`). */
export function parseArguments(argv: readonly string[]): ParsedArguments {
  const positional: string[] = [];
  const flags = new Map<string, string>();
  const valued = new Set(['kubeconfig', 'context', 'out', 'import']);
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] ?? '';
    const match = /^--([^=]+)(?:=(.*))?$/.exec(argument);
    if (!match) {
      positional.push(argument);
      continue;
    }
    const key = match[1] ?? '';
    let value = match[2];
    if (value === undefined && valued.has(key)) {
      value = argv[index + 1];
      if (value === undefined) throw new Error(`--${key} needs a value`);
      index++;
    }
    flags.set(key, value ?? 'true');
  }
  return { positional, flags };
}

async function refresh(flags: Map<string, string>): Promise<void> {
  const kubeconfigPath = flags.get('kubeconfig');
  const onProgress = (message: string) => process.stderr.write(`[k-gen] ${message}\n`);
  if (kubeconfigPath) {
    const snapshot = await fetchSnapshot({
      kubeconfigPath,
      context: flags.get('context'),
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

async function crd(inputs: string[], flags: Map<string, string>): Promise<number> {
  if (inputs.length === 0) {
    process.stderr.write(`k-gen: crd needs at least one file\n${USAGE}`);
    return 2;
  }
  const cwd = process.cwd();
  const outDirectory = relative(cwd, resolve(cwd, flags.get('out') ?? 'generated')) || '.';
  const files = new Map<string, string>();
  for (const input of inputs) {
    const crds = parseCrds(await readFile(input, 'utf8'), input);
    if (crds.length === 0) throw new Error(`${input} holds no CustomResourceDefinition`);
    const generated = generateCrdClients(crds, {
      outDirectory,
      source: basename(input),
      ...(flags.has('import') ? { runtimeModule: flags.get('import') } : {}),
    });
    for (const [path, content] of generated) files.set(path, content);
  }
  if (flags.has('check')) {
    const stale = await staleFiles(files, [], cwd);
    for (const path of stale) process.stderr.write(`k-gen: stale: ${path}\n`);
    return stale.length === 0 ? 0 : 1;
  }
  await writeGeneratedFiles(files, [], cwd);
  for (const path of files.keys()) process.stderr.write(`[k-gen] wrote ${path}\n`);
  return 0;
}

/** main runs k-gen with `argv` (without node and the script) and resolves with the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    const { positional, flags } = parseArguments(argv);
    const command = positional[0] ?? 'builtin';
    if (flags.has('help') || command === 'help') {
      process.stdout.write(USAGE);
      return 0;
    }
    if (command === 'builtin') {
      if (flags.has('refresh')) await refresh(flags);
      const files = await builtinFiles();
      if (flags.has('check')) {
        const stale = await staleFiles(files, BUILTIN_OWNED_DIRECTORIES);
        for (const path of stale) process.stderr.write(`k-gen: stale: ${path}\n`);
        return stale.length === 0 ? 0 : 1;
      }
      const count = await writeGeneratedFiles(files, BUILTIN_OWNED_DIRECTORIES);
      process.stderr.write(`[k-gen] wrote ${count} files\n`);
      return 0;
    }
    if (command === 'crd') return await crd(positional.slice(1), flags);
    process.stderr.write(`k-gen: unknown command ${command}\n${USAGE}`);
    return 2;
  } catch (error) {
    process.stderr.write(`k-gen: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
