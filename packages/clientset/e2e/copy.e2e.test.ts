import { caught } from '@k/test-utils';
import { isForbidden } from '@k/rest';
import { useTestNamespace } from '@k/testenv/vitest';
import { randomBytes } from 'node:crypto';
import {
  link,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
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

/** linksUnder lists the symbolic links under `root` (not following them). */
async function linksUnder(root: string): Promise<string[]> {
  const found: string[] = [];
  const pending = [root];
  for (let directory = pending.pop(); directory !== undefined; directory = pending.pop()) {
    for (const child of await readdir(directory, { withFileTypes: true })) {
      const path = join(directory, child.name);
      if (child.isSymbolicLink()) found.push(path);
      else if (child.isDirectory()) pending.push(path);
    }
  }
  return found.sort();
}

describe('copy', () => {
  it('copies a directory tree to the pod and back, files and modes intact; links only to the pod, as kubectl', async () => {
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
    // kubectl cp skips every symbolic link coming out of a container; so does copyFromPod.
    expect(result.skipped).toEqual([
      {
        path: 'www/current',
        reason: 'a symbolic link (kubectl cp skips them too)',
        linkname: 'index.html',
      },
    ]);
    expect(result.written).toContain('back/nested/big.bin');
    expect(result.writtenCount).toBe(result.written.length);
    expect((await readFile(join(back, 'nested', 'big.bin'))).equals(big)).toBe(true);
    expect(await readFile(join(back, 'nested', 'deeper', longName), 'utf8')).toBe('a long name\n');
    expect((await lstat(join(back, 'run.sh'))).mode & 0o777).toBe(0o755);
    await expect(lstat(join(back, 'current'))).rejects.toThrow();

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

  it('refuses what a hostile container tar sends: absolute and .. names, every link, links on the way', async () => {
    const container = join(scratch, 'hostile');
    // The container's tar is made hostile with GNU tar's own TAR_OPTIONS: it renames members to
    // absolute and `..` paths, a hard link's target to /etc/passwd, and writes a file "through"
    // a symbolic link; the links themselves are real ones in the container's directory.
    const outside = join(scratch, 'outside');
    await mkdir(outside);
    await copyPod('hostile', container, [
      {
        name: 'TAR_OPTIONS',
        value: [
          '--sort=name',
          '--absolute-names',
          `--transform=s,^loot/abs$,${outside}/absolute,`,
          '--transform=s,^loot/dotdot$,loot/../../dotdot,',
          '--transform=s,^loot/sub/through$,loot/inner/through,',
          '--transform=s,^loot/sub/pwn$,loot/out/pwn,',
          '--transform=s,^loot/g1$,/etc/passwd,RSh',
        ].join(' '),
      },
    ]);
    const loot = join(container, 'loot');
    for (const directory of ['sub', 'x', 'y', 'pre'])
      await mkdir(join(loot, directory), { recursive: true });
    await writeFile(join(loot, 'fine.txt'), 'fine\n');
    await writeFile(join(loot, 'abs'), 'absolute\n');
    await writeFile(join(loot, 'dotdot'), 'dotdot\n');
    await writeFile(join(loot, 'sub', 'through'), 'through a link\n');
    await writeFile(join(loot, 'sub', 'pwn'), 'through a link out\n');
    await writeFile(join(loot, 'pre', 'new.txt'), 'through a local link\n');
    await writeFile(join(loot, 'g1'), 'g\n');
    await link(join(loot, 'g1'), join(loot, 'g2')); // its target renamed to /etc/passwd
    await writeFile(join(loot, 'h1'), 'h\n');
    await link(join(loot, 'h1'), join(loot, 'h2'));
    await symlink('/etc', join(loot, 'etc'));
    await symlink('../../../..', join(loot, 'up'));
    await symlink('sub', join(loot, 'inner'));
    await symlink(outside, join(loot, 'out'));
    // Chains: each link lexically inside, but x/root and y/a-root resolve two levels above the
    // destination through the other link (which comes first in x, last in y).
    await symlink('..', join(loot, 'x', 'here'));
    await symlink('here/../..', join(loot, 'x', 'root'));
    await symlink('b-here/../..', join(loot, 'y', 'a-root'));
    await symlink('..', join(loot, 'y', 'b-here'));

    // The local destination already holds a link out: nothing is written through it.
    const destination = join(scratch, 'landing', 'loot');
    await mkdir(destination, { recursive: true });
    await symlink(outside, join(destination, 'pre'));
    const result = await users.tester.coreV1
      .pods(namespace.name)
      .copyFromPod('hostile', 'loot', destination);
    const skipped = Object.fromEntries(result.skipped.map((entry) => [entry.path, entry.reason]));
    const aLink = 'a symbolic link (kubectl cp skips them too)';
    expect(skipped).toEqual({
      [`${outside}/absolute`]: 'an absolute path',
      'loot/../../dotdot': 'a path with ..',
      'loot/etc': aLink,
      'loot/up': aLink,
      'loot/inner': aLink,
      'loot/out': aLink,
      'loot/x/here': aLink,
      'loot/x/root': aLink,
      'loot/y/a-root': aLink,
      'loot/y/b-here': aLink,
      'loot/g2': 'a hard link',
      'loot/h2': 'a hard link',
      'loot/pre/new.txt': `through the symbolic link ${join(destination, 'pre')}`,
    });
    expect(result.skipped.find((entry) => entry.path === 'loot/g2')?.linkname).toBe('/etc/passwd');
    expect(result.skipped.find((entry) => entry.path === 'loot/x/root')?.linkname).toBe(
      'here/../..',
    );
    expect(result.skippedCount).toBe(13);
    // What is not a link is written, inside: files "through" a link land in a real directory.
    expect(await readFile(join(destination, 'fine.txt'), 'utf8')).toBe('fine\n');
    expect(await readFile(join(destination, 'g1'), 'utf8')).toBe('g\n');
    expect(await readFile(join(destination, 'h1'), 'utf8')).toBe('h\n');
    expect(await readFile(join(destination, 'inner', 'through'), 'utf8')).toBe('through a link\n');
    expect(await readFile(join(destination, 'out', 'pwn'), 'utf8')).toBe('through a link out\n');
    // No link was made: the only one is the destination's own, and nothing reached outside.
    expect(await linksUnder(destination)).toEqual([join(destination, 'pre')]);
    expect(await readdir(outside)).toEqual([]);
    await expect(lstat(join(scratch, 'dotdot'))).rejects.toThrow();
  });

  it("quotes only the end of a failing container tar's stderr, printable and whole", async () => {
    const container = join(scratch, 'noisy');
    // GNU tar's checkpoints echo this text to stderr once per 10 KiB record, about 1.5 MiB in all;
    // the dangling link under --dereference makes it exit 1 once the archive is written.
    const noise = `${'\u001b[31m\u202e€€€\u0007'.repeat(100)}${'x'.repeat(200)}`;
    await copyPod('noisy', container, [
      {
        name: 'TAR_OPTIONS',
        value: `--dereference --checkpoint=1 --checkpoint-action=echo=${noise}`,
      },
    ]);
    await mkdir(join(container, 'loot'), { recursive: true });
    await writeFile(join(container, 'loot', 'big.bin'), Buffer.alloc(8 * 1024 * 1024, 'b'));
    await symlink('/no/such/file', join(container, 'loot', 'dangling'));
    const error = await caught(
      users.tester.coreV1
        .pods(namespace.name)
        .copyFromPod('noisy', 'loot', join(scratch, 'noisy-out')),
    );
    expect((error as ClientsetError).code).toBe('ERR_CLIENTSET_COPY');
    const message = (error as Error).message;
    expect(message.length).toBeLessThan(4096 + 200);
    // The end of the last echo, whole: the escape's other characters stay, the controls do not.
    expect(message).toMatch(/ failed: ….*\ntar: (\[31m€€€){100}x{200}$/s);
    // eslint-disable-next-line no-control-regex -- no control character may reach the message
    expect(message).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\ufffd]/);
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
