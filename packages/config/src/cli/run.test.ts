import {
  chmodSync,
  chownSync,
  linkSync,
  lstatSync,
  readFileSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TempFiles } from '../testing/temp-files.js';
import { createTempFiles } from '../testing/temp-files.js';
import { run } from './run.js';

let files: TempFiles;
beforeEach(() => {
  files = createTempFiles();
});
afterEach(() => files.cleanup());

async function k(argv: string[], env: Record<string, string> = {}, cwd = files.root) {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, {
    env: { HOME: files.path('home'), ...env },
    cwd,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

const CONFIG = `current-context: ctx1
clusters: [{name: cl1, cluster: {server: s1, certificate-authority-data: aGVsbG8=}}]
users: [{name: u1, user: {token: secret-token}}]
contexts:
- {name: ctx1, context: {cluster: cl1, user: u1, namespace: n1}}
- {name: ctx2, context: {cluster: cl2, user: u2}}
- {name: ctx5, context: {}}
`;

describe('k-config', () => {
  it("prints kubectl's empty view and says on stderr which file it looked for", async () => {
    const result = await k(['view']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'apiVersion: v1\nclusters: null\ncontexts: null\ncurrent-context: ""\nkind: Config\npreferences: {}\nusers: null\n',
    );
    expect(result.stderr).toContain(files.path('home/.kube/config'));
  });

  it('redacts secrets unless --raw, and resolves --kubeconfig against cwd', async () => {
    files.write('dir/config', CONFIG);
    const redacted = await k(['view', '--kubeconfig', 'dir/config', '-o', 'json']);
    expect(redacted.stdout).toContain('"certificate-authority-data": "DATA+OMITTED"');
    expect(redacted.stdout).toContain('"token": "REDACTED"');
    expect(redacted.stdout).not.toContain('secret-token');
    const raw = await k(
      ['view', '--raw', '--kubeconfig=config', '--output=json'],
      {},
      files.path('dir'),
    );
    expect(raw.stdout).toContain('"token": "secret-token"');
  });

  it('minifies to --context and reports a missing cluster', async () => {
    const explicit = files.write('config', CONFIG);
    const minified = await k(['view', '--minify', '--kubeconfig', explicit, '-o', 'json']);
    expect(JSON.parse(minified.stdout)).toMatchObject({
      contexts: [{ name: 'ctx1' }],
      clusters: [{ name: 'cl1' }],
    });
    expect(await k(['view', '--minify', '--context=ctx2', '--kubeconfig', explicit])).toMatchObject(
      {
        code: 1,
        stdout: '',
        stderr: 'error: cannot locate cluster cl2\n',
      },
    );
  });

  it("prints kubectl's get-contexts table and names", async () => {
    const explicit = files.write('config', CONFIG);
    expect((await k(['get-contexts', '--kubeconfig', explicit])).stdout).toBe(
      [
        'CURRENT   NAME   CLUSTER   AUTHINFO   NAMESPACE',
        '*         ctx1   cl1       u1         n1',
        '          ctx2   cl2       u2         ',
        '          ctx5                        ',
        '',
      ].join('\n'),
    );
    expect(
      await k(['get-contexts', '-o', 'name', 'ctx2', 'nope', '--kubeconfig', explicit]),
    ).toEqual({
      code: 1,
      stdout: 'ctx2\n',
      stderr: 'error: context nope not found\n',
    });
  });

  it('prints the current context or fails like kubectl', async () => {
    const explicit = files.write('config', CONFIG);
    expect(await k(['current-context', '--kubeconfig', explicit])).toEqual({
      code: 0,
      stdout: 'ctx1\n',
      stderr: '',
    });
    expect((await k(['current-context', '--context=ctx2', '--kubeconfig', explicit])).stdout).toBe(
      'ctx1\n',
    );
    expect(await k(['current-context'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: current-context is not set\n',
    });
  });

  it('switches context and sets context fields in the file, keeping its mode', async () => {
    const explicit = files.write('config', CONFIG);
    chmodSync(explicit, 0o640);
    expect((await k(['use-context', 'ctx2', '--kubeconfig', explicit])).stdout).toBe(
      'Switched to context "ctx2".\n',
    );
    expect(
      (await k(['set-context', '--current', '--namespace=team', '--kubeconfig', explicit])).stdout,
    ).toBe('Context "ctx2" modified.\n');
    expect(
      (await k(['set-context', 'new', '--cluster', 'cl1', '--kubeconfig', explicit])).stdout,
    ).toBe('Context "new" created.\n');
    const text = readFileSync(explicit, 'utf8');
    expect(text).toContain('current-context: ctx2');
    expect(text).toContain('- {name: ctx2, context: {cluster: cl2, user: u2, namespace: team}}');
    expect((await k(['get-contexts', '-o', 'name', '--kubeconfig', explicit])).stdout).toBe(
      'ctx1\nctx2\nctx5\nnew\n',
    );
  });

  it("rejects bad command lines with kubectl's messages and exit code 1", async () => {
    expect(await k(['use-context'])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('unexpected args: []') as string,
    });
    expect(await k(['use-context', 'nope'])).toMatchObject({
      code: 1,
      stderr: 'error: no context exists with the name: "nope"\n',
    });
    expect(await k(['set-context'])).toMatchObject({
      stderr: 'error: you must specify a non-empty context name or --current\n',
    });
    expect(await k(['set-context', 'a', '--current'])).toMatchObject({
      stderr: 'error: you cannot specify both a context name and --current\n',
    });
    expect(await k(['view', '--bogus'])).toMatchObject({
      code: 1,
      stderr: "error: unknown flag: --bogus\nSee 'k-config view --help' for usage.\n",
    });
    expect(await k(['view', '-o', 'wide'])).toMatchObject({ code: 1 });
    expect(await k(['frobnicate'])).toMatchObject({ code: 1 });
  });

  it('explains itself', async () => {
    const overview = await k(['--help']);
    expect(overview.code).toBe(0);
    for (const command of [
      'view',
      'current-context',
      'get-contexts',
      'use-context',
      'set-context',
    ]) {
      expect(overview.stdout).toContain(command);
    }
    expect((await k(['view', '--help'])).stdout).toContain('--minify');
  });

  // `sudo k-config use-context` runs as root on a file a user owns; these tests run as root.
  it('use-context keeps the owner, group, mode, symlink and hard links of the file', async () => {
    const real = files.write('dotfiles/kubeconfig', CONFIG);
    chownSync(real, 1000, 1000);
    chmodSync(real, 0o640);
    linkSync(real, files.path('dotfiles/kubeconfig.hardlink'));
    const link = files.path('home/.kube/config');
    files.write('home/.kube/.keep', '');
    symlinkSync(real, link);
    const inode = statSync(real).ino;
    expect((await k(['use-context', 'ctx2'])).code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(files.path('dotfiles/kubeconfig.hardlink'), 'utf8')).toContain(
      'current-context: ctx2',
    );
    expect(statSync(real)).toMatchObject({ ino: inode, uid: 1000, gid: 1000, nlink: 2 });
    expect(statSync(real).mode & 0o777).toBe(0o640);
  });

  it('use-context keeps the owner of a file without links, and replaces it whole', async () => {
    const path = files.write('config', CONFIG);
    chownSync(path, 1000, 1000);
    expect((await k(['use-context', 'ctx2', `--kubeconfig=${path}`])).code).toBe(0);
    expect(readFileSync(path, 'utf8')).toContain('current-context: ctx2');
    expect(statSync(path)).toMatchObject({ uid: 1000, gid: 1000, nlink: 1 });
  });
});
