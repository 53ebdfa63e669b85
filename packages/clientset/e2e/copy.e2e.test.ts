import { caught } from '@k/test-utils';
import { isForbidden } from '@k/rest';
import { useTestNamespace } from '@k/testenv/vitest';
import { randomBytes } from 'node:crypto';
import {
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readlink,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ClientsetError } from '../src/index.js';
import { eventually, useUserClientsets } from './helpers.js';
import { finish, kwokObject, runningPod } from './pod-streams-helpers.js';

// kubectl cp's tar over exec, through kube-apiserver to kwok, which runs the container's `tar`
// on this machine in the Exec object's workDir (the "container's filesystem" is that directory).
const namespace = useTestNamespace({ prefix: 'clientset-copy' });
const scratch = await mkdtemp(join(tmpdir(), 'clientset-copy-'));
const users = useUserClientsets();

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** copyPod makes pod `name` whose container runs commands in `workDir`, with `envs`. */
async function copyPod(
  name: string,
  workDir: string,
  envs: { name: string; value: string }[] = [],
) {
  await mkdir(workDir, { recursive: true });
  await kwokObject(namespace.name, 'Exec', name, { execs: [{ local: { workDir, envs } }] });
  await runningPod(users.admin, namespace.name, name);
  await eventually(async () => {
    const output = await finish(
      await users.tester.coreV1.pods(namespace.name).exec(name, { command: ['true'] }),
    );
    expect(output.error).toBeUndefined();
  });
}

describe('copy', () => {
  it('copies a directory tree to the pod and back, files, modes and links intact', async () => {
    const container = join(scratch, 'container');
    await copyPod('files', container);
    await mkdir(join(container, 'srv'));
    const local = join(scratch, 'local');
    await mkdir(join(local, 'site', 'nested', 'deeper'), { recursive: true });
    const big = randomBytes(3 * 1024 * 1024 + 17);
    await writeFile(join(local, 'site', 'index.html'), '<h1>hello</h1>\n');
    await writeFile(join(local, 'site', 'nested', 'big.bin'), big);
    await writeFile(join(local, 'site', 'run.sh'), '#!/bin/sh\necho run\n', { mode: 0o755 });
    const longName = `${'n'.repeat(120)}.txt`;
    await writeFile(join(local, 'site', 'nested', 'deeper', longName), 'a long name\n');
    await symlink('index.html', join(local, 'site', 'current'));
    const pods = users.tester.coreV1.pods(namespace.name);

    await pods.copyToPod('files', join(local, 'site'), 'srv/www');
    expect(await readFile(join(container, 'srv', 'www', 'index.html'), 'utf8')).toBe(
      '<h1>hello</h1>\n',
    );
    expect((await readFile(join(container, 'srv', 'www', 'nested', 'big.bin'))).equals(big)).toBe(
      true,
    );
    expect((await lstat(join(container, 'srv', 'www', 'run.sh'))).mode & 0o777).toBe(0o755);
    expect(
      await readFile(join(container, 'srv', 'www', 'nested', 'deeper', longName), 'utf8'),
    ).toBe('a long name\n');
    expect(await readlink(join(container, 'srv', 'www', 'current'))).toBe('index.html');

    // And back, from the container's tar.
    const back = join(scratch, 'back');
    const result = await pods.copyFromPod('files', 'srv/www', back);
    expect(result.skipped).toEqual([]);
    expect(result.written).toContain('back/nested/big.bin');
    expect((await readFile(join(back, 'nested', 'big.bin'))).equals(big)).toBe(true);
    expect(await readFile(join(back, 'nested', 'deeper', longName), 'utf8')).toBe('a long name\n');
    expect((await lstat(join(back, 'run.sh'))).mode & 0o777).toBe(0o755);
    expect(await readlink(join(back, 'current'))).toBe('index.html');

    // A single file, to a new name.
    await pods.copyToPod('files', join(local, 'site', 'index.html'), 'srv/renamed.html');
    expect(await readFile(join(container, 'srv', 'renamed.html'), 'utf8')).toBe('<h1>hello</h1>\n');
  });

  it('reports a failing container tar as ERR_CLIENTSET_COPY with its message', async () => {
    const container = join(scratch, 'failing');
    await copyPod('failing', container);
    const pods = users.tester.coreV1.pods(namespace.name);
    const from = await caught(pods.copyFromPod('failing', 'no/such/file', join(scratch, 'x')));
    expect(from).toBeInstanceOf(ClientsetError);
    expect((from as ClientsetError).code).toBe('ERR_CLIENTSET_COPY');
    expect((from as Error).message).toContain('no/such');
    await writeFile(join(scratch, 'one.txt'), 'one\n');
    const to = await caught(
      pods.copyToPod('failing', join(scratch, 'one.txt'), 'missing-dir/one.txt'),
    );
    expect((to as ClientsetError).code).toBe('ERR_CLIENTSET_COPY');
    expect((to as Error).message).toContain('missing-dir');
  });

  it('refuses what a hostile container tar sends: absolute paths, .., links out and through links', async () => {
    const container = join(scratch, 'hostile');
    // The container's tar is made hostile with GNU tar's own TAR_OPTIONS: it renames members to
    // absolute and `..` paths and writes a file through a symbolic link.
    const outside = join(scratch, 'outside');
    await mkdir(outside);
    await copyPod('hostile', container, [
      {
        name: 'TAR_OPTIONS',
        value: [
          '--absolute-names',
          `--transform=s,^loot/abs$,${outside}/absolute,`,
          '--transform=s,^loot/dotdot$,loot/../../dotdot,',
          '--transform=s,^loot/sub/through$,loot/inner/through,',
          '--transform=s,^loot/sub/etc$,loot/etc/escaped,',
        ].join(' '),
      },
    ]);
    const loot = join(container, 'loot');
    await mkdir(join(loot, 'sub'), { recursive: true });
    await writeFile(join(loot, 'fine.txt'), 'fine\n');
    await writeFile(join(loot, 'abs'), 'absolute\n');
    await writeFile(join(loot, 'dotdot'), 'dotdot\n');
    await writeFile(join(loot, 'sub', 'through'), 'through a link\n');
    await writeFile(join(loot, 'sub', 'etc'), 'into /etc\n');
    await symlink('/etc', join(loot, 'etc'));
    await symlink('../../../..', join(loot, 'up'));
    await symlink('sub', join(loot, 'inner'));

    const destination = join(scratch, 'landing', 'loot');
    await mkdir(join(scratch, 'landing'));
    const result = await users.tester.coreV1
      .pods(namespace.name)
      .copyFromPod('hostile', 'loot', destination);
    const skipped = Object.fromEntries(result.skipped.map((entry) => [entry.path, entry.reason]));
    expect(skipped[`${outside}/absolute`]).toBe('an absolute path');
    expect(skipped['loot/../../dotdot']).toBe('a path with ..');
    expect(skipped['loot/etc']).toBe('a symbolic link to the absolute path /etc');
    expect(skipped['loot/up']).toMatch(/outside the destination/);
    expect(skipped['loot/inner/through']).toMatch(/through the symbolic link/);
    expect(result.written).toContain('loot/fine.txt');
    expect(result.written).toContain('loot/inner');
    expect(await readFile(join(destination, 'fine.txt'), 'utf8')).toBe('fine\n');
    expect(await readlink(join(destination, 'inner'))).toBe('sub');
    // Nothing reached outside the destination, nor through the inner link.
    await expect(lstat(join(outside, 'absolute'))).rejects.toThrow();
    await expect(lstat(join(scratch, 'dotdot'))).rejects.toThrow();
    await expect(lstat(join(destination, 'sub', 'through'))).rejects.toThrow();
    await expect(lstat(join(destination, 'up'))).rejects.toThrow();
  });

  it('is refused for alice with a typed 403', async () => {
    await copyPod('guarded', join(scratch, 'guarded'));
    await writeFile(join(scratch, 'two.txt'), 'two\n');
    const pods = users.alice.coreV1.pods(namespace.name);
    expect(
      isForbidden(await caught(pods.copyToPod('guarded', join(scratch, 'two.txt'), 'two.txt'))),
    ).toBe(true);
    expect(
      isForbidden(await caught(pods.copyFromPod('guarded', 'two.txt', join(scratch, 'three')))),
    ).toBe(true);
  });
});
