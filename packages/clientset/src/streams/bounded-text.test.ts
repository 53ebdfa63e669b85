import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BoundedText, printable, wholeCharacters } from './bounded-text.js';

/** pieces cuts `bytes` at `cuts` (offsets, any order, duplicates allowed). */
function pieces(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const offsets = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const result: Buffer[] = [];
  let start = 0;
  for (const offset of [...offsets, bytes.length]) {
    result.push(bytes.subarray(start, offset));
    start = offset;
  }
  return result;
}

describe('BoundedText', () => {
  it('decodes a character split across chunks whole, however the text is cut (tail and head)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 100 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        (text, cuts) => {
          const bytes = Buffer.from(printable(text), 'utf8');
          for (const keep of ['head', 'tail'] as const) {
            const bounded = new BoundedText(64 * 1024, keep);
            for (const piece of pieces(bytes, cuts)) bounded.push(piece);
            expect(bounded.text()).toBe(bytes.toString('utf8').trim());
          }
        },
      ),
    );
  });

  it('keeps the last bytes of a long stream, starting on a whole character', () => {
    const tail = new BoundedText(10, 'tail');
    tail.push('start of something long, ');
    tail.push(Buffer.from('and then € € the end'));
    // The last 10 bytes are the end of `€` and ` the end`: the cut character is dropped.
    expect(tail.text()).toBe('…the end');
    expect(tail.truncated).toBe(true);
    const whole = new BoundedText(10, 'tail');
    whole.push('short');
    expect(whole.text()).toBe('short');
    expect(whole.truncated).toBe(false);
  });

  it('keeps the first bytes, ending on a whole character', () => {
    const head = new BoundedText(8, 'head');
    head.push(Buffer.from('abcdef€'));
    head.push('never seen');
    expect(head.text()).toBe('abcdef…');
  });

  it('holds at most its bound of bytes, copied, whatever is pushed', () => {
    const tail = new BoundedText(1024, 'tail');
    const big = Buffer.alloc(1024 * 1024, 'x');
    tail.push(big);
    for (let index = 0; index < 1000; index += 1) tail.push(Buffer.alloc(100, 'y'));
    const text = tail.text();
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1024 + 3);
    expect(text.endsWith('y'.repeat(1000))).toBe(true);
  });

  it('strips control characters but tab and newline', () => {
    const text = new BoundedText(4096, 'tail');
    text.push('\u001b[31mred\u001b[0m\r\nnext\tline\u0007 \u202eevil\u202c \u0085end');
    expect(text.text()).toBe('[31mred[0m\nnext\tline evil end');
  });
});

describe('wholeCharacters', () => {
  it('drops a character cut off at the end, and nothing else', () => {
    const euro = Buffer.from('a€', 'utf8'); // 61 e2 82 ac
    expect(wholeCharacters(euro)).toBe(4);
    expect(wholeCharacters(euro.subarray(0, 3))).toBe(1);
    expect(wholeCharacters(euro.subarray(0, 2))).toBe(1);
    expect(wholeCharacters(Buffer.from('😀', 'utf8').subarray(0, 3))).toBe(0);
    expect(wholeCharacters(Buffer.from('plain'))).toBe(5);
    expect(wholeCharacters(Buffer.alloc(0))).toBe(0);
  });
});
