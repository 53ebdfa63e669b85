import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { compareStrings, stableJson } from '@k/codegen/emit';
import type { Snapshot } from './fetch-snapshot.js';
import { snapshotDirectory, SNAPSHOT_ROOT } from './snapshot-layout.js';

/**
 * writeSnapshot replaces `snapshot/<version>/` below `root` with the snapshot's files, each as
 * stable JSON, and returns the directory. Files of an earlier fetch that are gone are removed.
 */
export async function writeSnapshot(
  snapshot: Snapshot,
  root: string = SNAPSHOT_ROOT,
): Promise<string> {
  const directory = snapshotDirectory(snapshot.version, root);
  await rm(directory, { recursive: true, force: true });
  for (const path of [...snapshot.files.keys()].sort(compareStrings)) {
    const target = join(directory, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, stableJson(snapshot.files.get(path)));
  }
  return directory;
}

async function listFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/**
 * readSnapshot reads `snapshot/<version>/` below `root`. A missing directory is an error that
 * names it and says how to fetch one (`npm run codegen -- --refresh`).
 */
export async function readSnapshot(
  version: string,
  root: string = SNAPSHOT_ROOT,
): Promise<Snapshot> {
  const directory = snapshotDirectory(version, root);
  let paths: string[];
  try {
    paths = await listFiles(directory);
  } catch (error) {
    throw new Error(
      `no snapshot for kubernetes ${version} at ${directory}; fetch one with \`npm run codegen -- --refresh\``,
      { cause: error },
    );
  }
  const files = new Map<string, unknown>();
  for (const path of paths.sort(compareStrings)) {
    const key = relative(directory, path).split(sep).join('/');
    files.set(key, JSON.parse(await readFile(path, 'utf8')));
  }
  return { version, files };
}
