/**
 * plainNodeProgram turns a benchmark child written in TypeScript into a plain `node` program:
 * esbuild bundles the child's own files into `bench/.tmp-programs/<name>.mjs` and leaves every
 * package import (undici, @k/*, @kubernetes/client-node) to node, so the clients load their
 * built dist exactly as an application does.
 *
 * Why not run the child through tsx: tsx transpiles every module whose real path is outside
 * node_modules, and k's workspace packages are symlinks into packages/. Measured on 2026-12-06,
 * importing @k/clientset's dist that way held 113 MB of RSS against 59 MB under plain node (undici
 * alone: 91 against 64), so a memory row compared tsx's work, not the clients'.
 */
import { mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const outputDirectory = fileURLToPath(new URL('./.tmp-programs/', import.meta.url));

/** plainNodeProgram bundles `entry` (a path) and resolves with the program's path. */
export async function plainNodeProgram(entry: string): Promise<string> {
  mkdirSync(outputDirectory, { recursive: true });
  const outfile = join(outputDirectory, basename(entry).replace(/\.ts$/, '.mjs'));
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node22',
    logLevel: 'warning',
  });
  return outfile;
}
