/**
 * SHARED_STRING is the longest string read through {@link sharedString}'s cache. JSON.parse
 * shares strings of up to 10 characters (V8 internalizes them); this shares longer ones too, so
 * the images, mount paths, label keys and owner names that repeat in every object of a list are
 * one string each: a cache of decoded objects (an informer's) needs no pass of its own to share
 * them, and a repeated string costs neither an allocation nor a call into Buffer's decoder.
 */
const SHARED_STRING = 128;

// A direct-mapped cache of strings by a hash of their bytes; bounded (at most 8,192 strings of
// at most 128 bytes), so strings that appear once only push others out of their slot.
const CACHE_SIZE = 8192;
const cachedStrings: (string | undefined)[] = new Array<string | undefined>(CACHE_SIZE);

/** sharedString reads `bytes[start, end)` (at most SHARED_STRING bytes) as UTF-8, shared when cached. */
function sharedString(bytes: Buffer, start: number, end: number): string {
  let hash = end - start;
  for (let index = start; index < end; index += 1) {
    hash = Math.imul(hash ^ (bytes[index] as number), 0x01000193);
  }
  const slot = (hash >>> 0) & (CACHE_SIZE - 1);
  const cached = cachedStrings[slot];
  if (cached !== undefined && cached.length === end - start) {
    let same = true;
    for (let index = 0; index < cached.length; index += 1) {
      if (cached.charCodeAt(index) !== bytes[start + index]) {
        same = false;
        break;
      }
    }
    if (same) return cached;
  }
  const text = bytes.toString('utf8', start, end);
  // Only ASCII is cached (its UTF-16 length and code units are its bytes, as the check reads).
  if (text.length === end - start) cachedStrings[slot] = text;
  return text;
}

/**
 * MAX_MESSAGE_DEPTH bounds how deeply the embedded messages of one object nest. The decoders
 * recurse once per level, so a hostile answer nested deeper than the stack holds would end in a
 * RangeError; past this bound it is a `ProtoFormatError`. No built-in kind nests a tenth as deep
 * (their table has no cycle); only a schema with a recursive message (a JSONSchemaProps) can.
 */
export const MAX_MESSAGE_DEPTH = 1000;

function tooDeep(): ProtoFormatError {
  return new ProtoFormatError(`embedded messages nest deeper than ${MAX_MESSAGE_DEPTH} levels`);
}

/**
 * ProtoReader reads the protobuf wire format from a byte range: field keys, varints, fixed
 * values and length-delimited fields (strings, bytes, embedded messages). Every read checks the
 * range, so a truncated or malformed message fails with a `ProtoFormatError`, never an
 * out-of-bounds read or an endless loop; and embedded messages nest at most
 * {@link MAX_MESSAGE_DEPTH} deep, counted by the reader, so no decoder overflows the stack.
 */
export class ProtoReader {
  readonly bytes: Buffer;
  position: number;
  readonly end: number;
  /** depth is the number of embedded messages open around the position. */
  depth: number;

  constructor(bytes: Buffer, start = 0, end = bytes.length, depth = 0) {
    this.bytes = bytes;
    this.position = start;
    this.end = end;
    this.depth = depth;
  }

  /** done is true once the range is read. */
  get done(): boolean {
    return this.position >= this.end;
  }

  /** key reads a field key: `field << 3 | wireType`. */
  key(): number {
    return this.uint32();
  }

  /** uint32 reads a varint of at most 32 significant bits (field keys, lengths, int32, bool). */
  uint32(): number {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const byte = this.#byte();
      value |= (byte & 0x7f) << shift;
      if (byte < 0x80) return value >>> 0;
    }
    // A 64-bit varint (a negative int32 is sign-extended to ten bytes): keep the low 32 bits.
    for (let index = 5; index < 10; index += 1) if (this.#byte() < 0x80) return value >>> 0;
    throw new ProtoFormatError('varint longer than 10 bytes');
  }

  /** int32 reads a varint as a signed 32-bit integer. */
  int32(): number {
    return this.uint32() | 0;
  }

  /** int64 reads a varint as a signed 64-bit integer, exact within ±2^53. */
  int64(): number {
    let low = 0;
    let high = 0;
    let byte = 0;
    let shift = 0;
    for (; shift < 28; shift += 7) {
      byte = this.#byte();
      low |= (byte & 0x7f) << shift;
      if (byte < 0x80) return low >>> 0;
    }
    byte = this.#byte();
    low |= (byte & 0x0f) << 28;
    high = (byte & 0x7f) >> 4;
    if (byte >= 0x80) {
      for (shift = 3; shift < 32; shift += 7) {
        byte = this.#byte();
        high |= (byte & 0x7f) << shift;
        if (byte < 0x80) break;
      }
      if (byte >= 0x80) throw new ProtoFormatError('varint longer than 10 bytes');
    }
    // `high | 0` is negative for a negative value: the sum is then exact while it is within ±2^53.
    return (high | 0) * 0x1_0000_0000 + (low >>> 0);
  }

  /** bool reads a varint as a boolean. */
  bool(): boolean {
    return this.uint32() !== 0;
  }

  /** length reads the length of a length-delimited field and checks it fits the range. */
  length(): number {
    const length = this.uint32();
    if (length > this.end - this.position) {
      throw new ProtoFormatError('a length-delimited field runs past the end of its message');
    }
    return length;
  }

  /** string reads a length-delimited field as UTF-8 text. */
  string(): string {
    const length = this.length();
    const start = this.position;
    const end = (this.position += length);
    return length <= SHARED_STRING
      ? sharedString(this.bytes, start, end)
      : this.bytes.toString('utf8', start, end);
  }

  /** bytes reads a length-delimited field (a view, not a copy). */
  bytesField(): Buffer {
    const length = this.length();
    const start = this.position;
    this.position += length;
    return this.bytes.subarray(start, this.position);
  }

  /**
   * embeddedEnd reads an embedded message's length and returns where it ends, for reading it on
   * this reader (no reader of its own); {@link endEmbedded} then checks it was read to that end.
   */
  embeddedEnd(): number {
    const end = this.length() + this.position;
    if (++this.depth > MAX_MESSAGE_DEPTH) throw tooDeep();
    return end;
  }

  /** endEmbedded fails when the fields of an embedded message ending at `end` ran past it. */
  endEmbedded(end: number): void {
    if (this.position !== end) {
      throw new ProtoFormatError('a field runs past the end of its message');
    }
    this.depth -= 1;
  }

  /** message returns a reader over an embedded message and moves past it. */
  message(): ProtoReader {
    const length = this.length();
    const start = this.position;
    this.position += length;
    if (this.depth >= MAX_MESSAGE_DEPTH) throw tooDeep();
    return new ProtoReader(this.bytes, start, this.position, this.depth + 1);
  }

  /** skip moves past the value of a field of `wireType` (a field this decoder does not know). */
  skip(wireType: number): void {
    switch (wireType) {
      case 0:
        this.int64();
        return;
      case 1:
        this.#advance(8);
        return;
      case 2:
        this.#advance(this.length());
        return;
      case 5:
        this.#advance(4);
        return;
      default:
        throw new ProtoFormatError(`unsupported wire type ${wireType}`);
    }
  }

  #advance(count: number): void {
    if (count > this.end - this.position) {
      throw new ProtoFormatError('a field runs past the end of its message');
    }
    this.position += count;
  }

  #byte(): number {
    if (this.position >= this.end) throw new ProtoFormatError('truncated varint');
    return this.bytes[this.position++] as number;
  }
}

/** ProtoFormatError is bytes that are not a well-formed protobuf message of the expected type. */
export class ProtoFormatError extends Error {
  override readonly name = 'ProtoFormatError';
}
