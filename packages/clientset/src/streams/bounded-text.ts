/** MAX_QUOTED_BYTES bounds what an error message quotes of text a container or server sent. */
export const MAX_QUOTED_BYTES = 4096;

// C0 controls but tab and newline, DEL, C1 controls, and the bidirectional embeddings,
// overrides and isolates (which reorder what a terminal shows).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * printable returns `text` without control characters (tab and newline stay), so that text a
 * container sent cannot move a terminal's cursor, recolour it or reorder what it shows when an
 * error quoting it is printed.
 */
export function printable(text: string): string {
  return text.replace(CONTROL, '');
}

/** isContinuation tells a UTF-8 continuation byte (`10xxxxxx`). */
function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/**
 * wholeCharacters returns the length of `bytes` without a multi-byte UTF-8 character cut off at
 * its end (what is left after cutting a longer text at a byte count).
 */
export function wholeCharacters(bytes: Buffer): number {
  // The last character starts at most 3 bytes before the end.
  for (let start = bytes.length - 1; start >= 0 && start >= bytes.length - 4; start -= 1) {
    const byte = bytes[start] as number;
    if (isContinuation(byte)) continue;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return start + length > bytes.length ? start : bytes.length;
  }
  return bytes.length;
}

/**
 * BoundedText keeps the first (`'head'`) or the last (`'tail'`) `maxBytes` bytes of a stream of
 * chunks, and decodes them once at the end, so a character split across chunks decodes whole and
 * memory stays bounded however much is pushed. Kept chunks are copies: a small piece of a large
 * message does not keep the whole message alive.
 */
export class BoundedText {
  readonly #maxBytes: number;
  readonly #keep: 'head' | 'tail';
  #chunks: Buffer[] = [];
  #bytes = 0;
  #dropped = false;

  constructor(maxBytes: number, keep: 'head' | 'tail') {
    this.#maxBytes = maxBytes;
    this.#keep = keep;
  }

  /** push adds a chunk (a string is taken as UTF-8). */
  push(chunk: Buffer | string): void {
    const data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (data.length === 0) return;
    if (this.#keep === 'head') {
      const room = this.#maxBytes - this.#bytes;
      if (data.length > room) this.#dropped = true;
      if (room <= 0) return;
      const kept = Buffer.from(data.subarray(0, room));
      this.#chunks.push(kept);
      this.#bytes += kept.length;
      return;
    }
    if (data.length >= this.#maxBytes) {
      this.#dropped ||= data.length > this.#maxBytes || this.#bytes > 0;
      this.#chunks = [Buffer.from(data.subarray(data.length - this.#maxBytes))];
      this.#bytes = this.#maxBytes;
      return;
    }
    this.#chunks.push(Buffer.from(data));
    this.#bytes += data.length;
    // Drop whole chunks from the front while what is left still holds maxBytes.
    while (this.#bytes - (this.#chunks[0]?.length ?? 0) >= this.#maxBytes) {
      this.#bytes -= (this.#chunks.shift() as Buffer).length;
      this.#dropped = true;
    }
  }

  /** truncated tells whether bytes were dropped. */
  get truncated(): boolean {
    return this.#dropped || this.#bytes > this.#maxBytes;
  }

  /**
   * text decodes what was kept as UTF-8, without control characters and trimmed; `…` marks the
   * side where bytes were dropped.
   */
  text(): string {
    let bytes = Buffer.concat(this.#chunks, this.#bytes);
    if (this.#keep === 'tail' && bytes.length > this.#maxBytes) {
      bytes = bytes.subarray(bytes.length - this.#maxBytes);
    }
    if (this.truncated) {
      if (this.#keep === 'head') bytes = bytes.subarray(0, wholeCharacters(bytes));
      else {
        let start = 0;
        while (start < 3 && isContinuation(bytes[start])) start += 1;
        bytes = bytes.subarray(start);
      }
    }
    const text = printable(bytes.toString('utf8')).trim();
    if (!this.truncated || text === '') return text;
    return this.#keep === 'head' ? `${text}…` : `…${text}`;
  }
}
