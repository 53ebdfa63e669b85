import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter, type SplitLine } from './line-splitter.js';

function split(chunks: readonly Buffer[], maxBytes: number): { text: string; dropped: number }[] {
  const splitter = new LineSplitter(maxBytes);
  const lines: SplitLine[] = [];
  // Each line is read before the next push, as its bytes may be a view of the chunk.
  const read = (line: SplitLine) => ({ text: line.bytes.toString('utf8'), dropped: line.dropped });
  const taken: { text: string; dropped: number }[] = [];
  for (const chunk of chunks) for (const line of splitter.push(chunk)) taken.push(read(line));
  const last = splitter.end();
  if (last) lines.push(last);
  return [...taken, ...lines.map(read)];
}

describe('LineSplitter', () => {
  it('cuts any chunking of a text into the lines of the whole text', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme', maxLength: 30 }), { maxLength: 10 }),
        fc.array(fc.nat(), { maxLength: 15 }),
        (lines, cuts) => {
          const bytes = Buffer.from(lines.join('\n'), 'utf8');
          const offsets = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort(
            (a, b) => a - b,
          );
          const chunks: Buffer[] = [];
          let start = 0;
          for (const offset of [...offsets, bytes.length]) {
            chunks.push(bytes.subarray(start, offset));
            start = offset;
          }
          const whole = bytes.toString('utf8').split('\n');
          if (whole.at(-1) === '') whole.pop();
          expect(split(chunks, 1 << 20)).toEqual(whole.map((text) => ({ text, dropped: 0 })));
        },
      ),
    );
  });

  it('keeps the first maxBytes of a line and counts the rest, in one chunk or many', () => {
    const line = 'x'.repeat(100);
    const oneChunk = split([Buffer.from(`${line}\nshort\n`)], 10);
    expect(oneChunk).toEqual([
      { text: 'x'.repeat(10), dropped: 90 },
      { text: 'short', dropped: 0 },
    ]);
    const bytes = Buffer.from(`${line}\nshort`);
    const chunks = Array.from({ length: bytes.length }, (_unused, index) =>
      bytes.subarray(index, index + 1),
    );
    expect(split(chunks, 10)).toEqual(oneChunk);
  });

  it('copies a line that waits for more chunks (the chunk is not kept)', () => {
    const splitter = new LineSplitter(4);
    const chunk = Buffer.from('abcdefgh');
    expect(splitter.push(chunk)).toEqual([]);
    chunk.fill(0); // the chunk's memory is reused by its owner
    const [line] = splitter.push(Buffer.from('\n'));
    expect(line?.bytes.toString()).toBe('abcd');
    expect(line?.dropped).toBe(4);
  });
});
