import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { InstallSpec } from './install.js';

/** temporaryDirectory makes a new folder and returns it with its removal. */
export async function temporaryDirectory(
  prefix: string,
): Promise<{ directory: string; remove: () => Promise<void> }> {
  const directory = await mkdtemp(path.join(tmpdir(), `k-runtimes-${prefix}-`));
  return { directory, remove: () => rm(directory, { recursive: true, force: true }) };
}

/**
 * fakeRuntime packs (with the real `npm pack`) a package `fake-runtime` whose `bin/fake` is the
 * shell script `script`, and returns the spec that installs that tarball as runtime `fake`
 * version `1.2.3`: the real install path, offline, with a binary the test controls.
 */
export async function fakeRuntime(directory: string, script: string): Promise<InstallSpec> {
  const source = path.join(directory, 'fake-runtime');
  await mkdir(path.join(source, 'bin'), { recursive: true });
  await writeFile(
    path.join(source, 'package.json'),
    JSON.stringify({ name: 'fake-runtime', version: '1.2.3', files: ['bin'] }),
  );
  await writeFile(path.join(source, 'bin', 'fake'), `#!/bin/sh\n${script}\n`);
  await chmod(path.join(source, 'bin', 'fake'), 0o755);
  const packed = spawnSync('npm', ['pack', '--silent', '--pack-destination', directory], {
    cwd: source,
    encoding: 'utf8',
  });
  if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
  return {
    name: 'fake',
    runtime: 'fake',
    version: '1.2.3',
    packageName: 'fake-runtime',
    executable: 'bin/fake',
    source: path.join(directory, packed.stdout.trim()),
  };
}

/**
 * lineUnderTest is the Node version this process must run on: the one `k-runtimes exec` or the
 * matrix named (`K_RUNTIMES_NAME` node@…, `K_RUNTIMES_VERSION`), else this process's own.
 */
export function lineUnderTest(): string {
  const name = process.env.K_RUNTIMES_NAME ?? '';
  const version = process.env.K_RUNTIMES_VERSION;
  return name.startsWith('node@') && version ? `v${version}` : process.version;
}

/** Runner runs a command (no shell) in a folder and gives its exit status and stdout. */
export type Runner = (
  command: string,
  args: readonly string[],
  cwd: string,
) => Promise<{ status: number | null; stdout: string; stderr: string }>;

/**
 * childNodeVersions starts `node` the three ways the tests start children and returns the
 * version each printed: `process.execPath`, `node` found on PATH, and a `#!/usr/bin/env node`
 * program run directly (how npx and the packages' bins start).
 */
export async function childNodeVersions(run: Runner): Promise<Record<string, string>> {
  const { directory, remove } = await temporaryDirectory('line');
  try {
    const bin = path.join(directory, 'print-version');
    await writeFile(bin, '#!/usr/bin/env node\nconsole.log(process.version);\n');
    await chmod(bin, 0o755);
    const printed = async (command: string, args: readonly string[]) => {
      const result = await run(command, args, directory);
      if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr}`);
      return result.stdout.trim();
    };
    return {
      execPath: await printed(process.execPath, ['-p', 'process.version']),
      path: await printed('node', ['-p', 'process.version']),
      shebang: await printed(bin, []),
    };
  } finally {
    await remove();
  }
}
