import {
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readdir,
  realpath,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { extractTar, MAX_DEPTH, MAX_NAME_BYTES } from './extract-tar.js';
import { encodeHeader, endOfArchive, padding, type TarHeader } from './tar.js';

// extractTar over archives written here entry by entry, in orders and with names no `tar` of a
// container would write by itself (the e2e test makes GNU tar in a kwok container hostile).
let scratch: string;

beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'extract-tar-'));
});

afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

type Entry = Partial<TarHeader> & { name: string; body?: string };

function archive(entries: readonly Entry[]): Readable {
  const blocks: Buffer[] = [];
  let written = 0;
  for (const entry of entries) {
    const body = Buffer.from(entry.body ?? '');
    const header = encodeHeader({
      type: 'file',
      mode: 0o644,
      size: body.length,
      mtimeSeconds: 0,
      linkname: '',
      ...entry,
    });
    if (entry.type === 'other') fifo(header);
    for (const block of [header, body, Buffer.alloc(padding(body.length))]) {
      blocks.push(block);
      written += block.length;
    }
  }
  blocks.push(endOfArchive(written));
  return Readable.from(blocks);
}

/** fifo turns a ustar header block into a FIFO's (type 6), with its checksum. */
function fifo(block: Buffer): void {
  block.write('6', 156, 'latin1');
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
}

/** links lists every symbolic link under `root`, with where it resolves (if it does). */
async function links(root: string): Promise<string[]> {
  const found: string[] = [];
  const pending = [root];
  for (let directory = pending.pop(); directory !== undefined; directory = pending.pop()) {
    for (const child of await readdir(directory, { withFileTypes: true })) {
      const path = join(directory, child.name);
      if (child.isSymbolicLink()) found.push(`${path} -> ${await realpath(path).catch(() => '?')}`);
      else if (child.isDirectory()) pending.push(path);
    }
  }
  return found;
}

describe('extractTar', () => {
  it('writes no symbolic link, so a chain of links cannot lead out (kubectl cp skips them too)', async () => {
    const destination = join(scratch, 'a', 'b', 'out');
    await mkdir(join(scratch, 'a', 'b'), { recursive: true });
    const result = await extractTar(
      archive([
        { name: 'loot/', type: 'directory', mode: 0o755 },
        { name: 'loot/x/', type: 'directory', mode: 0o755 },
        // here -> .. is the destination; root -> here/../.. is lexically the destination too,
        // but through here it is two levels above it.
        { name: 'loot/x/here', type: 'symlink', linkname: '..' },
        { name: 'loot/x/root', type: 'symlink', linkname: 'here/../..' },
        // The same the other way round: the link the `..` climbs through comes later.
        { name: 'loot/y/a-root', type: 'symlink', linkname: 'b-here/../..' },
        { name: 'loot/y/b-here', type: 'symlink', linkname: '..' },
        { name: 'loot/fine.txt', body: 'fine\n' },
      ]),
      destination,
      'loot',
    );
    expect(await links(destination)).toEqual([]);
    const reason = 'a symbolic link (kubectl cp skips them too)';
    expect(result.skipped).toEqual([
      { path: 'loot/x/here', reason, linkname: '..' },
      { path: 'loot/x/root', reason, linkname: 'here/../..' },
      { path: 'loot/y/a-root', reason, linkname: 'b-here/../..' },
      { path: 'loot/y/b-here', reason, linkname: '..' },
    ]);
    expect(result.written).toEqual(['out', 'out/x', 'out/fine.txt']);
    expect(await readFile(join(destination, 'fine.txt'), 'utf8')).toBe('fine\n');
  });

  it('refuses absolute and .. names, links of both kinds and special files; writes the rest inside', async () => {
    const outside = join(scratch, 'outside');
    await mkdir(outside);
    const destination = join(scratch, 'out');
    const result = await extractTar(
      archive([
        { name: 'loot/', type: 'directory', mode: 0o750 },
        { name: `${outside}/absolute`, body: 'absolute\n' },
        { name: 'loot/../../dotdot', body: 'dotdot\n' },
        { name: 'other/file', body: 'not under the copied path\n' },
        { name: 'loot/etc', type: 'symlink', linkname: '/etc' },
        { name: 'loot/hard', type: 'hardlink', linkname: 'loot/fine.txt' },
        { name: 'loot/passwd', type: 'hardlink', linkname: '/etc/passwd' },
        { name: 'loot/fifo', type: 'other' },
        // A link, then a file "through" it: the link is not made, so the file lands in a
        // directory of that name, inside.
        { name: 'loot/out', type: 'symlink', linkname: outside },
        { name: 'loot/out/pwned', body: 'inside after all\n' },
        { name: 'loot/fine.txt', body: 'fine\n', mode: 0o640 },
        { name: 'loot/sub/deeper/run.sh', body: 'echo run\n', mode: 0o755 },
      ]),
      destination,
      'loot',
    );
    expect(Object.fromEntries(result.skipped.map((entry) => [entry.path, entry.reason]))).toEqual({
      [`${outside}/absolute`]: 'an absolute path',
      'loot/../../dotdot': 'a path with ..',
      'other/file': 'outside the copied path loot',
      'loot/etc': 'a symbolic link (kubectl cp skips them too)',
      'loot/hard': 'a hard link',
      'loot/passwd': 'a hard link',
      'loot/fifo': 'a device, FIFO or other special file',
      'loot/out': 'a symbolic link (kubectl cp skips them too)',
    });
    expect(result.skipped.find((entry) => entry.path === 'loot/passwd')?.linkname).toBe(
      '/etc/passwd',
    );
    expect(await readdir(outside)).toEqual([]);
    await expect(lstat(join(scratch, 'dotdot'))).rejects.toThrow();
    expect(await links(destination)).toEqual([]);
    expect(await readFile(join(destination, 'out', 'pwned'), 'utf8')).toBe('inside after all\n');
    expect((await lstat(join(destination, 'fine.txt'))).mode & 0o777).toBe(0o640);
    expect((await lstat(join(destination, 'sub', 'deeper', 'run.sh'))).mode & 0o777).toBe(0o755);
    expect((await lstat(destination)).mode & 0o777).toBe(0o750);
    expect(result.writtenCount).toBe(4);
    expect(result.skippedCount).toBe(8);
  });

  it('never writes through a symbolic link already in the destination', async () => {
    const outside = join(scratch, 'outside');
    await mkdir(outside);
    await writeFile(join(outside, 'target.txt'), 'untouched\n');
    const destination = join(scratch, 'out');
    await mkdir(destination);
    await symlink(outside, join(destination, 'linked-dir'));
    await symlink(join(outside, 'target.txt'), join(destination, 'linked-file'));
    const result = await extractTar(
      archive([
        { name: 'loot/linked-dir/new.txt', body: 'no\n' },
        { name: 'loot/linked-file', body: 'no\n' },
      ]),
      destination,
      'loot',
    );
    expect(result.skipped.map((entry) => entry.reason)).toEqual([
      `through the symbolic link ${join(destination, 'linked-dir')}`,
      'the destination is a symbolic link or a directory',
    ]);
    expect(await readdir(outside)).toEqual(['target.txt']);
    expect(await readFile(join(outside, 'target.txt'), 'utf8')).toBe('untouched\n');
  });

  it('bounds its lists, the names in them and the depth of entries, and counts everything', async () => {
    const entries: Entry[] = [];
    for (let index = 0; index < 30; index += 1) {
      entries.push({ name: `loot/file-${index}`, body: `${index}\n` });
      entries.push({ name: `loot/link-${index}`, type: 'symlink', linkname: 'x'.repeat(9000) });
    }
    const longName = `loot/${'n/'.repeat(3000)}file`;
    entries.push({ name: longName, body: 'too deep\n' });
    const destination = join(scratch, 'out');
    const result = await extractTar(archive(entries), destination, 'loot', {
      maxListedEntries: 5,
    });
    expect(result.written).toEqual([
      'out/file-0',
      'out/file-1',
      'out/file-2',
      'out/file-3',
      'out/file-4',
    ]);
    expect(result.writtenCount).toBe(30);
    expect(result.skipped).toHaveLength(5);
    expect(result.skippedCount).toBe(31);
    expect(result.skipped[0]?.linkname).toBe('x'.repeat(MAX_NAME_BYTES));
    expect(await readdir(destination)).toHaveLength(30);

    const tooDeep = `loot/${'d/'.repeat(MAX_DEPTH)}file`;
    const deepest = `loot/${'d/'.repeat(MAX_DEPTH - 1)}file`;
    const levels = await extractTar(
      archive([
        { name: tooDeep, body: 'too deep\n' },
        { name: deepest, body: 'deep enough\n' },
      ]),
      destination,
      'loot',
    );
    expect(levels.skipped).toEqual([{ path: tooDeep, reason: `deeper than ${MAX_DEPTH} levels` }]);
    expect(levels.writtenCount).toBe(1);

    const deep = await extractTar(
      archive([{ name: longName, body: 'too deep\n' }]),
      destination,
      'loot',
    );
    expect(deep.skipped).toEqual([
      { path: longName.slice(0, MAX_NAME_BYTES), reason: `a name over ${MAX_NAME_BYTES} bytes` },
    ]);
  });
});
