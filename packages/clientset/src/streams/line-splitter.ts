/** SplitLine is one line of a byte stream, without its newline. */
export interface SplitLine {
  /** bytes are the line's first bytes, at most the splitter's `maxBytes`. */
  bytes: Buffer;
  /** dropped counts the bytes of the line after `bytes` that were not kept. */
  dropped: number;
}

/**
 * LineSplitter cuts a byte stream into lines at `\n`, keeping at most `maxBytes` of each line
 * and counting the rest. It searches each chunk once, from where the last line ended, so its
 * work is linear in the input however long a line is; a line within one chunk is a view of that
 * chunk (read it before the next push), a longer one is copied. Bytes, not text: `\n` never occurs inside a UTF-8 character, so a
 * character split across chunks is whole in the line's bytes.
 */
export class LineSplitter {
  readonly #maxBytes: number;
  #pieces: Buffer[] = [];
  #kept = 0;
  #dropped = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** push returns the lines that `chunk` ends (what follows its last newline waits for more). */
  push(chunk: Buffer): SplitLine[] {
    const lines: SplitLine[] = [];
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline === -1) {
        this.#append(chunk, start, chunk.length);
        return lines;
      }
      if (this.#pieces.length === 0 && this.#dropped === 0) {
        // The whole line is in this chunk: a view of it, handed over at once.
        const end = Math.min(newline, start + this.#maxBytes);
        lines.push({ bytes: chunk.subarray(start, end), dropped: newline - end });
      } else {
        this.#append(chunk, start, newline);
        lines.push(this.#take());
      }
      start = newline + 1;
    }
  }

  /** end returns the last line when the stream ended without a newline after it. */
  end(): SplitLine | undefined {
    return this.#kept === 0 && this.#dropped === 0 ? undefined : this.#take();
  }

  #append(chunk: Buffer, from: number, to: number): void {
    const room = this.#maxBytes - this.#kept;
    const keep = Math.min(to - from, room);
    if (keep > 0) {
      // A copy: the piece waits for later chunks and must not keep this one's memory alive.
      this.#pieces.push(Buffer.from(chunk.subarray(from, from + keep)));
      this.#kept += keep;
    }
    this.#dropped += to - from - Math.max(keep, 0);
  }

  #take(): SplitLine {
    const pieces = this.#pieces;
    const bytes = pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces, this.#kept);
    const line = { bytes, dropped: this.#dropped };
    this.#pieces = [];
    this.#kept = 0;
    this.#dropped = 0;
    return line;
  }
}
