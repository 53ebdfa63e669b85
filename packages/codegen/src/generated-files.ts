import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { compareStrings } from './emit/stable-json.js';

/**
 * GeneratedFiles maps a path (with `/` separators, relative to the root the files are written
 * below: the working directory for `k-gen crd`) to the file's exact content.
 */
export type GeneratedFiles = Map<string, string>;

async function filesBelow(root: string, directory: string): Promise<string[]> {
  try {
    const entries = await readdir(join(root, directory), { recursive: true, withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile())
      .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'));
  } catch {
    return [];
  }
}

/**
 * staleFiles compares `files` with the disk below `root`: it returns each path whose content
 * differs or is missing, and each file inside an `owned` directory that the generator would not
 * write (left over). Empty means the committed output is current.
 */
export async function staleFiles(
  files: GeneratedFiles,
  owned: readonly string[],
  root: string,
): Promise<string[]> {
  const stale: string[] = [];
  for (const [path, content] of files) {
    let current: string | undefined;
    try {
      current = await readFile(join(root, path), 'utf8');
    } catch {
      current = undefined;
    }
    if (current !== content) stale.push(path);
  }
  for (const directory of owned) {
    for (const path of await filesBelow(root, directory)) {
      if (!files.has(path)) stale.push(path);
    }
  }
  return stale.sort(compareStrings);
}

/**
 * writeGeneratedFiles writes `files` below `root`, first removing what the generator owns
 * (`owned` directories) so no stale file survives, and returns how many files it wrote.
 */
export async function writeGeneratedFiles(
  files: GeneratedFiles,
  owned: readonly string[],
  root: string,
): Promise<number> {
  for (const directory of owned) await rm(join(root, directory), { recursive: true, force: true });
  for (const path of [...files.keys()].sort(compareStrings)) {
    const target = join(root, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, files.get(path)!);
  }
  return files.size;
}
