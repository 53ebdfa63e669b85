import { ClientsetError } from '../errors.js';

/** BLOCK is the tar block size; headers and bodies are padded to it. */
const BLOCK = 512;
/** RECORD is GNU tar's default record (20 blocks); archives end padded to it. */
const RECORD = 20 * BLOCK;

/** TarEntryType is what an entry is (the types `kubectl cp` handles; others are `other`). */
type TarEntryType = 'file' | 'directory' | 'symlink' | 'hardlink' | 'other';

/** TarHeader is one entry's header, with GNU long names and pax paths already applied. */
export interface TarHeader {
  name: string;
  type: TarEntryType;
  mode: number;
  size: number;
  mtimeSeconds: number;
  linkname: string;
}

function copyError(message: string): ClientsetError {
  return new ClientsetError('ERR_CLIENTSET_COPY', `tar: ${message}`, { resource: 'pods' });
}

function readString(block: Buffer, offset: number, length: number): string {
  const field = block.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? length : end).toString('utf8');
}

/** readNumber reads an octal field, or GNU's base-256 form (first byte's high bit set). */
function readNumber(block: Buffer, offset: number, length: number): number {
  const field = block.subarray(offset, offset + length);
  if (((field[0] ?? 0) & 0x80) !== 0) {
    let value = (field[0] ?? 0) & 0x7f;
    for (let index = 1; index < field.length; index += 1) value = value * 256 + (field[index] ?? 0);
    return value;
  }
  const text = field.toString('latin1').replace(/\0.*$/s, '').trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text))
    throw copyError(`a header field is not a number (${text.slice(0, 12)})`);
  return parseInt(text, 8);
}

function checksumOf(block: Buffer): number {
  let sum = 0;
  for (let index = 0; index < BLOCK; index += 1) {
    sum += index >= 148 && index < 156 ? 0x20 : (block[index] ?? 0);
  }
  return sum;
}

const TYPES: Readonly<Record<string, TarEntryType>> = {
  '0': 'file',
  '\0': 'file',
  '7': 'file',
  '1': 'hardlink',
  '2': 'symlink',
  '5': 'directory',
};

/** parsePax reads a pax extended header's `length key=value\n` records. */
function parsePax(body: Buffer): Map<string, string> {
  const records = new Map<string, string>();
  let offset = 0;
  while (offset < body.length) {
    const space = body.indexOf(0x20, offset);
    if (space === -1) break;
    const length = Number(body.subarray(offset, space).toString('latin1'));
    if (!Number.isInteger(length) || length <= 0 || offset + length > body.length) {
      throw copyError('a pax header is malformed');
    }
    const record = body.subarray(space + 1, offset + length - 1).toString('utf8');
    const equals = record.indexOf('=');
    if (equals > 0) records.set(record.slice(0, equals), record.slice(equals + 1));
    offset += length;
  }
  return records;
}

/**
 * ByteReader reads exact byte counts from a stream of chunks (a `Readable`'s async iterator),
 * so the tar reader pulls, and back-pressure reaches the source.
 */
class ByteReader {
  readonly #iterator: AsyncIterator<Buffer>;
  #chunk: Buffer = Buffer.alloc(0);

  constructor(source: AsyncIterable<Buffer>) {
    this.#iterator = source[Symbol.asyncIterator]();
  }

  /** take returns up to `length` bytes at once (fewer only at the end of the stream). */
  async take(length: number): Promise<Buffer> {
    while (this.#chunk.length === 0) {
      const next = await this.#iterator.next();
      if (next.done) return Buffer.alloc(0);
      this.#chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
    }
    const taken = this.#chunk.subarray(0, length);
    this.#chunk = this.#chunk.subarray(taken.length);
    return taken;
  }

  /** exact returns exactly `length` bytes, or throws at a premature end. */
  async exact(length: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    let got = 0;
    while (got < length) {
      const part = await this.take(length - got);
      if (part.length === 0) throw copyError('the archive ends in the middle of an entry');
      parts.push(part);
      got += part.length;
    }
    return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, length);
  }

  /** skip drops `length` bytes. */
  async skip(length: number): Promise<void> {
    let left = length;
    while (left > 0) {
      const part = await this.take(left);
      if (part.length === 0) throw copyError('the archive ends in the middle of an entry');
      left -= part.length;
    }
  }

  async close(): Promise<void> {
    await this.#iterator.return?.();
  }
}

/** TarEntry is an entry and its body, which must be read (or skipped) before the next entry. */
export interface TarEntry {
  header: TarHeader;
  /** body yields the content of a file entry in pieces (nothing for other types). */
  body(): AsyncIterable<Buffer>;
}

/**
 * readTar reads a tar stream (ustar, GNU and pax, as GNU tar and Go's archive/tar write them)
 * entry by entry. Pax `path`/`linkpath`/`size` records and GNU long names (`L`, `K`) apply to
 * the entry that follows; global pax headers are ignored. A bad checksum, a header field that
 * is not a number or an archive cut short is a `ClientsetError` `ERR_CLIENTSET_COPY`. Each
 * entry's body must be consumed before the next is asked for (an unread body is skipped).
 */
export async function* readTar(source: AsyncIterable<Buffer>): AsyncGenerator<TarEntry> {
  const reader = new ByteReader(source);
  let longName: string | undefined;
  let longLink: string | undefined;
  let pax = new Map<string, string>();
  try {
    for (;;) {
      const first = await reader.take(BLOCK);
      if (first.length === 0) return;
      const block =
        first.length === BLOCK
          ? first
          : Buffer.concat([first, await reader.exact(BLOCK - first.length)]);
      if (block.every((byte) => byte === 0)) return;
      if (readNumber(block, 148, 8) !== checksumOf(block))
        throw copyError('a header checksum is wrong');
      const typeflag = String.fromCharCode(block[156] ?? 0);
      let size = readNumber(block, 124, 12);
      const padded = Math.ceil(size / BLOCK) * BLOCK;
      if (typeflag === 'L' || typeflag === 'K' || typeflag === 'x' || typeflag === 'g') {
        if (size > 1024 * 1024) throw copyError('an extended header is over 1 MiB');
        const body = (await reader.exact(padded)).subarray(0, size);
        if (typeflag === 'L') longName = readString(body, 0, body.length);
        else if (typeflag === 'K') longLink = readString(body, 0, body.length);
        else if (typeflag === 'x') pax = parsePax(body);
        continue;
      }
      const magic = block.subarray(257, 263).toString('latin1');
      const prefix =
        magic.startsWith('ustar') && magic !== 'ustar ' ? readString(block, 345, 155) : '';
      const baseName = readString(block, 0, 100);
      const paxSize = pax.get('size');
      if (paxSize !== undefined && /^\d+$/.test(paxSize)) size = Number(paxSize);
      const header: TarHeader = {
        name: pax.get('path') ?? longName ?? (prefix ? `${prefix}/${baseName}` : baseName),
        type: TYPES[typeflag] ?? 'other',
        mode: readNumber(block, 100, 8) & 0o7777,
        size,
        mtimeSeconds: readNumber(block, 136, 12),
        linkname: pax.get('linkpath') ?? longLink ?? readString(block, 157, 100),
      };
      longName = undefined;
      longLink = undefined;
      pax = new Map();
      const bodyPadded = Math.ceil(size / BLOCK) * BLOCK;
      let consumed = 0;
      const body = async function* (): AsyncGenerator<Buffer> {
        let left = header.type === 'file' ? size : 0;
        while (left > 0) {
          const part = await reader.take(Math.min(left, 64 * 1024));
          if (part.length === 0) throw copyError('the archive ends in the middle of an entry');
          left -= part.length;
          consumed += part.length;
          yield part;
        }
      };
      yield { header, body };
      await reader.skip(bodyPadded - consumed);
    }
  } finally {
    await reader.close();
  }
}

function writeString(block: Buffer, text: string, offset: number, length: number): void {
  block.write(text, offset, length, 'utf8');
}

function writeOctal(block: Buffer, value: number, offset: number, length: number): void {
  block.write(`${value.toString(8).padStart(length - 1, '0')}\0`, offset, length, 'latin1');
}

function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body) + 1;
  while (String(length).length + Buffer.byteLength(body) !== length) {
    length = String(length).length + Buffer.byteLength(body);
  }
  return `${length}${body}`;
}

function rawHeader(header: TarHeader, typeflag: string): Buffer {
  const block = Buffer.alloc(BLOCK);
  writeString(block, header.name, 0, 100);
  writeOctal(block, header.mode, 100, 8);
  writeOctal(block, 0, 108, 8);
  writeOctal(block, 0, 116, 8);
  writeOctal(block, header.size, 124, 12);
  writeOctal(block, Math.max(0, Math.floor(header.mtimeSeconds)), 136, 12);
  block.write(typeflag, 156, 1, 'latin1');
  writeString(block, header.linkname, 157, 100);
  block.write('ustar\u000000', 257, 8, 'latin1');
  writeOctal(block, checksumOf(block), 148, 7);
  block[155] = 0x20;
  return block;
}

const TYPEFLAGS: Readonly<Record<TarEntryType, string>> = {
  file: '0',
  directory: '5',
  symlink: '2',
  hardlink: '1',
  other: '0',
};

/**
 * encodeHeader returns the header block(s) of an entry: a pax extended header first when the
 * name or link target is longer than ustar holds or not ASCII, or the size over 8 GiB. It
 * checks nothing about the name (the reader side decides what is safe).
 */
export function encodeHeader(header: TarHeader): Buffer {
  const records: string[] = [];
  const fits = (text: string): boolean =>
    Buffer.byteLength(text) <= 100 && /^[\x20-\x7e]*$/.test(text);
  if (!fits(header.name)) records.push(paxRecord('path', header.name));
  if (!fits(header.linkname)) records.push(paxRecord('linkpath', header.linkname));
  const large = header.size > 0o77777777777;
  if (large) records.push(paxRecord('size', String(header.size)));
  const main = rawHeader(
    {
      ...header,
      name: fits(header.name) ? header.name : header.name.slice(-99).replace(/^\/+/, ''),
      linkname: fits(header.linkname) ? header.linkname : '',
      size: large ? 0 : header.size,
    },
    TYPEFLAGS[header.type],
  );
  if (records.length === 0) return main;
  const body = Buffer.from(records.join(''), 'utf8');
  const paxHeader = rawHeader(
    {
      name: 'PaxHeader',
      type: 'file',
      mode: 0o644,
      size: body.length,
      mtimeSeconds: 0,
      linkname: '',
    },
    'x',
  );
  return Buffer.concat([paxHeader, body, Buffer.alloc(padding(body.length)), main]);
}

/** padding is the number of zero bytes that complete a body of `size` bytes to a block. */
export function padding(size: number): number {
  return (BLOCK - (size % BLOCK)) % BLOCK;
}

/** endOfArchive is the two zero blocks that end an archive, padded to a full record after `written` bytes. */
export function endOfArchive(written: number): Buffer {
  const total = written + 2 * BLOCK;
  return Buffer.alloc(2 * BLOCK + ((RECORD - (total % RECORD)) % RECORD));
}
