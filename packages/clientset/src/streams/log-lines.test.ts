import { caught } from '@k/test-utils';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ClientsetError } from '../errors.js';
import { logLines, MAX_LINE_BYTES, type LogLine, type LogLinesOptions } from './log-lines.js';

// logLines over a log whose chunks are cut exactly where a test needs them: no server splits
// its bytes at a chosen offset (the e2e tests read real kwok logs through kube-apiserver).
const TIMESTAMP = '2026-01-01T00:00:00.000000000Z';

async function linesOf(chunks: readonly Buffer[], options: LogLinesOptions = {}) {
  const open = () => Promise.resolve(Readable.from(chunks, { objectMode: false }));
  const lines: LogLine[] = [];
  for await (const line of logLines(open, ['main'], options)) lines.push(line);
  return lines;
}

describe('logLines', () => {
  it('decodes a character split across chunks whole', async () => {
    const bytes = Buffer.from(`${TIMESTAMP} prix: 5 €\n${TIMESTAMP} ok\n`, 'utf8');
    const euro = bytes.indexOf('€');
    const lines = await linesOf([bytes.subarray(0, euro + 1), bytes.subarray(euro + 1)]);
    expect(lines.map((line) => line.text)).toEqual(['prix: 5 €', 'ok']);
  });

  it('cuts a line over maxLineBytes on a character boundary and says how much it cut', async () => {
    const text = '€'.repeat(10); // 30 bytes
    const bytes = Buffer.from(`${TIMESTAMP} ${text}\n${TIMESTAMP} next\n${TIMESTAMP} last`);
    const chunks = Array.from({ length: Math.ceil(bytes.length / 7) }, (_unused, index) =>
      bytes.subarray(index * 7, index * 7 + 7),
    );
    const lines = await linesOf(chunks, { maxLineBytes: 10 });
    expect(lines).toEqual([
      { container: 'main', timestamp: TIMESTAMP, text: '€€€', truncatedBytes: 21 },
      { container: 'main', timestamp: TIMESTAMP, text: 'next' },
      { container: 'main', timestamp: TIMESTAMP, text: 'last' },
    ]);
  });

  it('bounds a line to 1 MiB by default', async () => {
    const long = Buffer.alloc(3 * MAX_LINE_BYTES, 'x');
    const chunks = [Buffer.from(`${TIMESTAMP} `)];
    for (let offset = 0; offset < long.length; offset += 65536) {
      chunks.push(long.subarray(offset, offset + 65536));
    }
    chunks.push(Buffer.from(`\n${TIMESTAMP} after\n`));
    const [first, second] = await linesOf(chunks);
    expect(first?.text.length).toBe(MAX_LINE_BYTES);
    expect(first?.truncatedBytes).toBe(2 * MAX_LINE_BYTES);
    expect(second).toEqual({ container: 'main', timestamp: TIMESTAMP, text: 'after' });
  });

  it('refuses a maxLineBytes that is not a positive integer', async () => {
    const error = (await caught(linesOf([], { maxLineBytes: 0 }))) as ClientsetError;
    expect(error.code).toBe('ERR_CLIENTSET_INVALID_ARGUMENT');
    expect(error.message).toContain('maxLineBytes');
  });
});
