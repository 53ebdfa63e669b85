import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { followChild } from './child-output.js';

/** ModuleKind is how a child program is loaded: an ES module (`.mjs`) or CommonJS (`.cjs`). */
export type ModuleKind = 'esm' | 'cjs';

/** MODULE_KINDS lists both kinds, for `describe.each(MODULE_KINDS)`. */
export const MODULE_KINDS: readonly ModuleKind[] = ['esm', 'cjs'];

/** WORKSPACE_ROOT is the monorepo's root folder. */
export const WORKSPACE_ROOT = path.resolve(import.meta.dirname, '../../..');

/**
 * NodeProgram is a plain program as a user writes it: named imports from packages (resolved as a
 * user's install resolves them, to the built `dist/`) and the body of an `async function main()`.
 * As ESM the program ends with `await main()` (top-level await); as CommonJS with
 * `main().then(…, error => { console.error(error); process.exitCode = 1 })`. Both are the shapes
 * whose silent early exits the process-lifetime tests exist to catch.
 */
export interface NodeProgram {
  imports: Readonly<Record<string, readonly string[]>>;
  main: string;
  /** files are written beside the program (name → content), e.g. a kubeconfig. */
  files?: Readonly<Record<string, string>>;
}

/** NodeProgramOptions tune one run. */
export interface NodeProgramOptions {
  /** env is added to the inherited environment (`undefined` removes a variable). */
  env?: Readonly<Record<string, string | undefined>>;
  args?: readonly string[];
  /** timeoutMs kills the program with SIGKILL after this long (default 60 000). */
  timeoutMs?: number;
  /** nodeArgs go before the program file, e.g. `--trace-warnings`. */
  nodeArgs?: readonly string[];
}

/** NodeProgramResult is how a child program ended and what it printed. */
export interface NodeProgramResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** timedOut is true when the run was killed at `timeoutMs`. */
  timedOut: boolean;
  /** directory is where the program ran (removed after the run). */
  directory: string;
}

/** RunningNodeProgram is a started child program. */
export interface RunningNodeProgram {
  readonly child: ChildProcess;
  readonly directory: string;
  /** stdout is what the program printed so far. */
  readonly stdout: () => string;
  /** waitForStdout resolves when stdout matches `pattern` (rejects at exit or after `timeoutMs`). */
  waitForStdout(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** exited resolves when the program has exited and its folder is removed. */
  readonly exited: Promise<NodeProgramResult>;
}

function identifierList(names: readonly string[]): string {
  return names.join(', ');
}

/** programSource renders `program` as the source of a `.mjs` or `.cjs` file. */
export function programSource(program: NodeProgram, kind: ModuleKind): string {
  const imports = Object.entries(program.imports);
  if (kind === 'esm') {
    return [
      ...imports.map(([name, names]) => `import { ${identifierList(names)} } from '${name}';`),
      `async function main() {\n${program.main}\n}`,
      'await main();',
      '',
    ].join('\n');
  }
  return [
    "'use strict';",
    ...imports.map(([name, names]) => `const { ${identifierList(names)} } = require('${name}');`),
    `async function main() {\n${program.main}\n}`,
    'main().then(\n  () => undefined,\n  (error) => {\n    console.error(error);\n    process.exitCode = 1;\n  },\n);',
    '',
  ].join('\n');
}

const WORKSPACE_FOLDERS = ['packages', 'apps', 'tools'];

function workspacePackageFolder(name: string): string | undefined {
  if (!name.startsWith('@k/')) return undefined;
  const base = name.slice('@k/'.length).split('/')[0] ?? '';
  for (const folder of WORKSPACE_FOLDERS) {
    const candidate = path.join(WORKSPACE_ROOT, folder, base);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
  }
  return undefined;
}

async function newestSourceTime(folder: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.includes('.test')) continue;
    const info = await stat(path.join(entry.parentPath, entry.name));
    newest = Math.max(newest, info.mtimeMs);
  }
  return newest;
}

/**
 * assertBuilt throws unless every workspace package `program` imports has a `dist/` at least as
 * new as its `src/`: child programs run the built code a user installs, and a stale build would
 * test yesterday's code. `npm test` builds before the e2e suite; by hand: `npx nx run-many -t build`.
 */
export async function assertBuilt(program: NodeProgram): Promise<void> {
  for (const name of Object.keys(program.imports)) {
    const folder = workspacePackageFolder(name);
    if (!folder || !existsSync(path.join(folder, 'src'))) continue;
    const entry = path.join(folder, 'dist', 'index.js');
    if (!existsSync(entry)) {
      throw new Error(`${name} is not built (${entry} is missing): run npx nx run-many -t build`);
    }
    const built = statSync(entry).mtimeMs;
    if ((await newestSourceTime(path.join(folder, 'src'))) > built) {
      throw new Error(`${name}'s dist is older than its src: run npx nx run-many -t build`);
    }
  }
}

/**
 * startNodeProgram writes `program` into a new temporary folder (whose `node_modules` links to the
 * workspace's, so packages resolve to their built `dist/` as after an install) and starts it with
 * the `node` running the tests. The folder is removed after the program exits.
 */
export async function startNodeProgram(
  program: NodeProgram,
  kind: ModuleKind,
  options: NodeProgramOptions = {},
): Promise<RunningNodeProgram> {
  await assertBuilt(program);
  const directory = await mkdtemp(path.join(tmpdir(), 'k-program-'));
  await symlink(path.join(WORKSPACE_ROOT, 'node_modules'), path.join(directory, 'node_modules'));
  for (const [name, content] of Object.entries(program.files ?? {})) {
    await writeFile(path.join(directory, name), content, { mode: 0o600 });
  }
  const file = path.join(directory, kind === 'esm' ? 'program.mjs' : 'program.cjs');
  await writeFile(file, programSource(program, kind));

  const env: NodeJS.ProcessEnv = { ...process.env };
  // vitest's worker settings must not leak into the user's program.
  for (const name of Object.keys(env)) {
    if (name.startsWith('VITEST') || name === 'NODE_OPTIONS') delete env[name];
  }
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), file, ...(options.args ?? [])],
    { cwd: directory, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output = followChild(child);
  let timedOut = false;
  const killer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs ?? 60_000);
  const removeDirectory = () => rm(directory, { recursive: true, force: true });
  const exited = output.closed.then(
    async (exit) => {
      clearTimeout(killer);
      await removeDirectory();
      return { ...exit, timedOut, directory };
    },
    async (error: unknown) => {
      clearTimeout(killer);
      await removeDirectory();
      throw error;
    },
  );

  return {
    child,
    directory,
    stdout: output.stdout,
    exited,
    waitForStdout: output.waitForStdout,
  };
}

/** runNodeProgram runs `program` to its end: see {@link startNodeProgram}. */
export async function runNodeProgram(
  program: NodeProgram,
  kind: ModuleKind,
  options: NodeProgramOptions = {},
): Promise<NodeProgramResult> {
  return (await startNodeProgram(program, kind, options)).exited;
}
