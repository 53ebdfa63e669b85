import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runCommand, type CommandResult } from './installed-project.js';
import { MODULE_KINDS, WORKSPACE_ROOT, type ModuleKind } from './node-program.js';

/** MODULE_TYPES is what the package.json of each kind's folder says (`type`). */
const MODULE_TYPES: Record<ModuleKind, string> = { esm: 'module', cjs: 'commonjs' };

/** USER_TSCONFIG is a user's tsconfig.json for Node (NodeNext, strict), over both kinds' folders. */
const USER_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    strict: true,
    skipLibCheck: true,
    types: ['node'],
  },
  include: MODULE_KINDS,
};

const TSC = path.join(WORKSPACE_ROOT, 'node_modules/typescript/bin/tsc');

/**
 * buildUserProject builds TypeScript modules in `directory` (an installed project, with
 * `@types/node`) as a user builds for Node, once as ESM and once as CommonJS: each module of
 * `sources` (its path inside a kind's folder → the file to copy) is copied into the folders `esm/`
 * and `cjs/`, whose package.json says the module type, and the workspace's tsc builds both with
 * {@link USER_TSCONFIG}, emitting `.js` beside each module. It resolves with what tsc reported
 * (tsc emits also after a type error: the caller checks the result).
 */
export async function buildUserProject(
  directory: string,
  sources: Readonly<Record<string, string>>,
): Promise<CommandResult> {
  for (const kind of MODULE_KINDS) {
    await mkdir(path.join(directory, kind));
    await writeFile(
      path.join(directory, kind, 'package.json'),
      JSON.stringify({ type: MODULE_TYPES[kind] }),
    );
    for (const [module, source] of Object.entries(sources)) {
      const file = path.join(directory, kind, module);
      await mkdir(path.dirname(file), { recursive: true });
      await copyFile(source, file);
    }
  }
  await writeFile(path.join(directory, 'tsconfig.json'), JSON.stringify(USER_TSCONFIG));
  return runCommand(process.execPath, [TSC, '-p', 'tsconfig.json'], directory);
}
