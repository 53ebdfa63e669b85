import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** WORKSPACE_ROOT is the monorepo's root folder. */
export const WORKSPACE_ROOT = path.join(import.meta.dirname, '../../..');

/** WorkspacePackage is one package of the workspace. */
export interface WorkspacePackage<Manifest> {
  /** directory is the package's folder relative to the root, with `/` (`packages/rest`). */
  directory: string;
  /** manifest is its package.json, parsed. */
  manifest: Manifest;
}

/** readManifest parses the package.json in `directory` (relative to `root`). */
export function readManifest<Manifest>(directory: string, root = WORKSPACE_ROOT): Manifest {
  return JSON.parse(readFileSync(path.join(root, directory, 'package.json'), 'utf8')) as Manifest;
}

/**
 * workspacePackages lists the packages the root package.json's `workspaces` globs name (`dir/*`:
 * every folder of `dir` with a package.json; `dir`: that folder), in the globs' order and each
 * glob's folders in directory order, with their manifests. `Manifest` is the caller's view of a
 * package.json; nothing checks it.
 */
export function workspacePackages<Manifest>(root = WORKSPACE_ROOT): WorkspacePackage<Manifest>[] {
  const patterns = readManifest<{ workspaces?: string[] }>('.', root).workspaces ?? [];
  return patterns.flatMap((pattern) => {
    const directories = pattern.endsWith('/*')
      ? readdirSync(path.join(root, pattern.slice(0, -2))).map((entry) =>
          path.posix.join(pattern.slice(0, -2), entry),
        )
      : [pattern];
    return directories
      .filter((directory) => existsSync(path.join(root, directory, 'package.json')))
      .map((directory) => ({ directory, manifest: readManifest<Manifest>(directory, root) }));
  });
}
