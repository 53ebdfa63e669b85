import { readFile } from 'node:fs/promises';
import { basename, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { generateCrdClients, parseCrds } from '../crd/generate-crd.js';
import { staleFiles, writeGeneratedFiles, type GeneratedFiles } from '../generated-files.js';

/** USAGE is what `k-gen --help` prints. */
export const USAGE = `usage: k-gen crd <crd.yaml>… [--out DIR] [--import MODULE] [--check]
       k-gen --help | --version

crd         write interfaces and a typed client for every served version of each
            CustomResourceDefinition in the files (multi-document YAML; other kinds are skipped),
            one module per version: <kebab-kind>-<version>.ts
  --out     output directory (default ./generated)
  --import  module the generated code imports its runtime from (default @k/clientset)
  --check   write nothing; exit 1 when a generated file is missing or differs (stale)

exit status: 0 done (or up to date), 1 failed (or stale), 2 wrong usage
`;

/** KGenIo is what one run of k-gen reads and writes besides files: no `process` inside. */
export interface KGenIo {
  /** cwd resolves the input files and `--out`; generated paths are reported relative to it. */
  cwd: string;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** version is what `--version` prints (the package's version). */
  version: string;
}

class UsageError extends Error {}

async function crd(
  inputs: readonly string[],
  values: { out?: string; import?: string; check?: boolean },
  io: KGenIo,
): Promise<number> {
  if (inputs.length === 0) throw new UsageError('crd needs at least one file');
  const outDirectory = relative(io.cwd, resolve(io.cwd, values.out ?? 'generated')) || '.';
  const files: GeneratedFiles = new Map();
  for (const input of inputs) {
    const crds = parseCrds(await readFile(resolve(io.cwd, input), 'utf8'), input);
    if (crds.length === 0) throw new Error(`${input} holds no CustomResourceDefinition`);
    const generated = generateCrdClients(crds, {
      outDirectory,
      source: basename(input),
      ...(values.import !== undefined ? { runtimeModule: values.import } : {}),
    });
    for (const [path, content] of generated) {
      if (files.has(path)) throw new Error(`two CRDs would both write ${path}`);
      files.set(path, content);
    }
  }
  if (values.check) {
    const stale = await staleFiles(files, [], io.cwd);
    for (const path of stale) io.stderr.write(`k-gen: stale: ${path}\n`);
    if (stale.length > 0) {
      io.stderr.write(`k-gen: ${stale.length} generated file(s) are stale: run k-gen crd again\n`);
      return 1;
    }
    io.stderr.write(`[k-gen] ${files.size} generated file(s) are up to date\n`);
    return 0;
  }
  await writeGeneratedFiles(files, [], io.cwd);
  for (const path of files.keys()) io.stderr.write(`[k-gen] wrote ${path}\n`);
  return 0;
}

/**
 * runKGen runs the k-gen command line `argv` (without node and the script) and resolves with the
 * exit status: 0 done, 1 failed or (with `--check`) stale, 2 wrong usage. It never throws and
 * never touches `process`: messages go to `io.stderr`, help and the version to `io.stdout`.
 */
export async function runKGen(argv: readonly string[], io: KGenIo): Promise<number> {
  try {
    let parsed;
    try {
      parsed = parseArgs({
        args: [...argv],
        allowPositionals: true,
        options: {
          out: { type: 'string' },
          import: { type: 'string' },
          check: { type: 'boolean' },
          help: { type: 'boolean', short: 'h' },
          version: { type: 'boolean' },
        },
      });
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const { values, positionals } = parsed;
    const [command, ...inputs] = positionals;
    if (values.help || command === 'help') {
      io.stdout.write(USAGE);
      return 0;
    }
    if (values.version) {
      io.stdout.write(`${io.version}\n`);
      return 0;
    }
    if (command === undefined) throw new UsageError('no command given');
    if (command === 'crd') return await crd(inputs, values, io);
    throw new UsageError(`unknown command ${command}`);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`k-gen: ${error.message}\n${USAGE}`);
      return 2;
    }
    io.stderr.write(`k-gen: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
