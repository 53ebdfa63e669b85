import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { caught } from '@k/test-utils';
import type { ClientsetError } from '../errors.js';
import { packTar } from './copy.js';
import { encodeHeader, readTar, type TarHeader } from './tar.js';

// Our tar against GNU tar, the container side of kubectl cp: each reads what the other writes.
const run = promisify(execFile);
let scratch: string | undefined;

afterEach(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = undefined;
});

async function collect(
  source: AsyncIterable<Buffer>,
): Promise<{ header: TarHeader; text: string }[]> {
  const entries: { header: TarHeader; text: string }[] = [];
  for await (const entry of readTar(source)) {
    let text = '';
    for await (const chunk of entry.body()) text += chunk.toString('utf8');
    entries.push({ header: entry.header, text });
  }
  return entries;
}

async function packed(source: string, name: string): Promise<Buffer> {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  await packTar(source, name, stream);
  return Buffer.concat(chunks);
}

describe('tar', () => {
  it('reads what GNU tar writes: long names, links, directories, modes', async () => {
    scratch = await mkdtemp(join(tmpdir(), 'tar-gnu-'));
    const long = 'd'.repeat(150);
    await mkdir(join(scratch, 'root', long), { recursive: true });
    await writeFile(join(scratch, 'root', long, 'file.txt'), 'deep\n', { mode: 0o640 });
    await symlink('x'.repeat(120), join(scratch, 'root', 'link'));
    const { stdout } = await run('tar', ['cf', '-', '-C', scratch, 'root'], {
      encoding: 'buffer',
      maxBuffer: 1 << 24,
    });
    const entries = await collect(Readable.from([stdout]));
    const byName = new Map(entries.map((entry) => [entry.header.name.replace(/\/$/, ''), entry]));
    expect(byName.get(`root/${long}/file.txt`)).toMatchObject({
      header: { type: 'file', mode: 0o640, size: 5 },
      text: 'deep\n',
    });
    expect(byName.get(`root/${long}`)?.header.type).toBe('directory');
    expect(byName.get('root/link')?.header).toMatchObject({
      type: 'symlink',
      linkname: 'x'.repeat(120),
    });
  });

  it('writes what GNU tar reads, pax names included, padded to a record', async () => {
    scratch = await mkdtemp(join(tmpdir(), 'tar-ours-'));
    const long = `${'é'.repeat(70)}.txt`;
    await mkdir(join(scratch, 'src', 'sub'), { recursive: true });
    await writeFile(join(scratch, 'src', 'sub', long), 'unicode and long\n');
    await writeFile(join(scratch, 'src', 'empty'), '');
    const archive = await packed(join(scratch, 'src'), 'renamed');
    expect(archive.length % 10240).toBe(0);
    const out = join(scratch, 'out');
    await mkdir(out);
    const extracting = run('tar', ['xf', '-', '-C', out]);
    extracting.child.stdin?.end(archive);
    await extracting;
    expect(await readFile(join(out, 'renamed', 'sub', long), 'utf8')).toBe('unicode and long\n');
    expect(await readFile(join(out, 'renamed', 'empty'), 'utf8')).toBe('');
    // And our reader reads it back.
    const names = (await collect(Readable.from([archive]))).map((entry) => entry.header.name);
    expect(names).toEqual(['renamed/', 'renamed/empty', 'renamed/sub/', `renamed/sub/${long}`]);
  });

  it('reads base-256 numbers and reads across any split of the input', async () => {
    const header = encodeHeader({
      name: 'f',
      type: 'file',
      mode: 0o600,
      size: 3,
      mtimeSeconds: 1,
      linkname: '',
    });
    // GNU's base-256 form of the size field (the high bit set), checksum recomputed.
    header.fill(0, 124, 136);
    header[124] = 0x80;
    header[135] = 3;
    header.fill(0x20, 148, 156);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'latin1');
    const archive = Buffer.concat([header, Buffer.from('abc'), Buffer.alloc(509 + 1024)]);
    for (const cut of [1, 100, 511, 512, 513, 514]) {
      const entries = await collect(
        Readable.from([archive.subarray(0, cut), archive.subarray(cut)]),
      );
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ header: { name: 'f', size: 3 }, text: 'abc' });
    }
  });

  it('refuses a bad checksum and an archive cut short', async () => {
    const header = encodeHeader({
      name: 'f',
      type: 'file',
      mode: 0o600,
      size: 3,
      mtimeSeconds: 1,
      linkname: '',
    });
    const corrupt = Buffer.from(header);
    corrupt[0] = 0x67;
    const badSum = await caught(collect(Readable.from([corrupt])));
    expect((badSum as ClientsetError).code).toBe('ERR_CLIENTSET_COPY');
    expect((badSum as Error).message).toContain('checksum');
    const short = await caught(collect(Readable.from([Buffer.concat([header, Buffer.from('a')])])));
    expect((short as Error).message).toContain('ends in the middle');
  });
});
