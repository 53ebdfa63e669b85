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
