import {
  chmodSync,
  chownSync,
  linkSync,
  lstatSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as FileSystem from 'node:fs/promises';
import { KubeconfigError } from '../errors.js';
import type { TempFiles } from '../testing/temp-files.js';
import { createTempFiles } from '../testing/temp-files.js';
import { writeFilesAtomically } from './write-files-atomically.js';

// Lets a test make one rename fail, as a full disk or a vanished directory would; make chown
// fail, as it does for a user who does not own the file; or refuse temporary files, as a
// directory the user may not write does.
const faults = vi.hoisted(() => ({
  failRenameTo: undefined as string | undefined,
  refuseChown: false,
  refuseTemporaryFiles: false,
}));
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof FileSystem>();
  const injected = (code: string) => Object.assign(new Error('injected'), { code });
  return {
    ...actual,
    rename: async (from: string, to: string) => {
      if (to === faults.failRenameTo) throw injected('EIO');
      return actual.rename(from, to);
    },
    chown: async (path: string, uid: number, gid: number) => {
      if (faults.refuseChown) throw injected('EPERM');
      return actual.chown(path, uid, gid);
    },
    open: async (path: string, flags?: string, mode?: number) => {
      if (faults.refuseTemporaryFiles && flags === 'wx') throw injected('EACCES');
      return actual.open(path, flags, mode);
    },
  };
});

let files: TempFiles;
beforeEach(() => {
  files = createTempFiles();
  Object.assign(faults, {
    failRenameTo: undefined,
    refuseChown: false,
    refuseTemporaryFiles: false,
  });
});
afterEach(() => files.cleanup());

const mode = (path: string) => statSync(path).mode & 0o777;

describe('writeFilesAtomically', () => {
  it('creates new files 0600 in new 0755 directories', async () => {
    const path = files.path('new/dir/config');
    await writeFilesAtomically([{ path, content: 'a: 1\n' }]);
    expect(readFileSync(path, 'utf8')).toBe('a: 1\n');
    expect(mode(path)).toBe(0o600);
    expect(mode(files.path('new/dir'))).toBe(0o755 & ~process.umask());
  });

  it("keeps an existing file's mode and a symlink in place", async () => {
    const target = files.write('real', 'old');
    chmodSync(target, 0o640);
    const link = files.path('link');
    symlinkSync('real', link);
    await writeFilesAtomically([{ path: link, content: 'new' }]);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('new');
    expect(mode(target)).toBe(0o640);
  });

  it('writes through a dangling symlink to its target', async () => {
    const link = files.path('link');
    symlinkSync('sub/target', link);
    await writeFilesAtomically([{ path: link, content: 'new' }]);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(files.path('sub/target'), 'utf8')).toBe('new');
  });

  it('changes nothing when a rename fails, even after another file was replaced', async () => {
    const first = files.write('a', 'old a');
    const second = files.write('b', 'old b');
    const third = files.path('c');
    faults.failRenameTo = second;
    const error = await writeFilesAtomically([
      { path: first, content: 'new a' },
      { path: second, content: 'new b' },
      { path: third, content: 'new c' },
    ]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(KubeconfigError);
    expect((error as KubeconfigError).code).toBe('ERR_CONFIG_WRITE');
    expect((error as KubeconfigError).message).toBe(`cannot rename kubeconfig "${second}": EIO`);
    expect(readFileSync(first, 'utf8')).toBe('old a');
    expect(readFileSync(second, 'utf8')).toBe('old b');
    expect(readdirSync(files.root).sort()).toEqual(['a', 'b']); // no temporary or backup left
  });

  it('removes a file it created when a later rename fails', async () => {
    const created = files.path('created');
    const existing = files.write('existing', 'old');
    faults.failRenameTo = existing;
    await expect(
      writeFilesAtomically([
        { path: created, content: 'new' },
        { path: existing, content: 'new' },
      ]),
    ).rejects.toThrow(KubeconfigError);
    expect(readdirSync(files.root)).toEqual(['existing']);
  });

  it('leaves no temporary file behind on success', async () => {
    const path = files.write('config', 'old');
    writeFileSync(path, 'old');
    await writeFilesAtomically([{ path, content: 'new' }]);
    expect(readdirSync(files.root)).toEqual(['config']);
  });

  // Root runs these tests, so it may give a file to another user; 1000 and 65534 need not exist.
  it('keeps the owner and group of a file another user owns', async () => {
    const path = files.write('config', 'old');
    chownSync(path, 1000, 1000);
    chmodSync(path, 0o640);
    await writeFilesAtomically([{ path, content: 'new' }]);
    expect(readFileSync(path, 'utf8')).toBe('new');
    expect(statSync(path)).toMatchObject({ uid: 1000, gid: 1000 });
    expect(mode(path)).toBe(0o640);
  });

  it('keeps the group of a group-shared file', async () => {
    const path = files.write('shared', 'old');
    chownSync(path, process.getuid?.() ?? 0, 65534);
    chmodSync(path, 0o660);
    await writeFilesAtomically([{ path, content: 'new' }]);
    expect(statSync(path).gid).toBe(65534);
    expect(mode(path)).toBe(0o660);
  });

  it('updates a file with hard links in place, so that every link sees the new content', async () => {
    const path = files.write('config', 'old content');
    const other = files.path('linked');
    linkSync(path, other);
    const inode = statSync(path).ino;
    await writeFilesAtomically([{ path, content: 'new' }]);
    expect(readFileSync(other, 'utf8')).toBe('new');
    expect(readFileSync(path, 'utf8')).toBe('new');
    expect(statSync(path)).toMatchObject({ ino: inode, nlink: 2 });
    expect(readdirSync(files.root).sort()).toEqual(['config', 'linked']); // no backup left
  });

  it('edits a symlinked file at its target and keeps the target inode when it has hard links', async () => {
    const target = files.write('real', 'old');
    linkSync(target, files.path('second-name'));
    chownSync(target, 1000, 1000);
    const link = files.path('link');
    symlinkSync('real', link);
    await writeFilesAtomically([{ path: link, content: 'new' }]);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(files.path('second-name'), 'utf8')).toBe('new');
    expect(statSync(target)).toMatchObject({ uid: 1000, gid: 1000, nlink: 2 });
  });

  it('writes in place when it may not give the new file the old owner', async () => {
    const path = files.write('config', 'old');
    chownSync(path, 1000, 1000);
    const inode = statSync(path).ino;
    faults.refuseChown = true;
    await writeFilesAtomically([{ path, content: 'new' }]);
    expect(readFileSync(path, 'utf8')).toBe('new');
    expect(statSync(path)).toMatchObject({ ino: inode, uid: 1000, gid: 1000 });
    expect(readdirSync(files.root)).toEqual(['config']);
  });

  it('writes in place when the directory takes no temporary file', async () => {
    const path = files.write('config', 'a longer old content');
    faults.refuseTemporaryFiles = true;
    await writeFilesAtomically([{ path, content: 'new' }]);
    expect(readFileSync(path, 'utf8')).toBe('new'); // truncated to the new length
  });

  it('puts back a file it updated in place when a later rename fails', async () => {
    const linked = files.write('a', 'old a');
    linkSync(linked, files.path('a-link'));
    const second = files.write('b', 'old b');
    faults.failRenameTo = second;
    await expect(
      writeFilesAtomically([
        { path: linked, content: 'new a, longer than before' },
        { path: second, content: 'new b' },
      ]),
    ).rejects.toThrow(KubeconfigError);
    expect(readFileSync(files.path('a-link'), 'utf8')).toBe('old a');
    expect(readFileSync(second, 'utf8')).toBe('old b');
    expect(readdirSync(files.root).sort()).toEqual(['a', 'a-link', 'b']);
  });
});
