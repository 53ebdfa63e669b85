import {
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  lstatSync,
  writeFileSync,
  chmodSync,
} from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as FileSystem from 'node:fs/promises';
import { KubeconfigError } from '../errors.js';
import type { TempFiles } from '../testing/temp-files.js';
import { createTempFiles } from '../testing/temp-files.js';
import { writeFilesAtomically } from './write-files-atomically.js';

// Lets a test make one rename fail, as a full disk or a vanished directory would.
const faults = vi.hoisted(() => ({ failRenameTo: undefined as string | undefined }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof FileSystem>();
  return {
    ...actual,
    rename: async (from: string, to: string) => {
      if (to === faults.failRenameTo) {
        throw Object.assign(new Error('injected'), { code: 'EIO' });
      }
      return actual.rename(from, to);
    },
  };
});

let files: TempFiles;
beforeEach(() => {
  files = createTempFiles();
  faults.failRenameTo = undefined;
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
    expect((error as KubeconfigError).code).toBe('ERR_KUBECONFIG_WRITE');
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
});
