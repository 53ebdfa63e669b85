import { describe, expect, it } from 'vitest';
import { FrameParser, FrameProtocolError, OPCODE, encodeFrame } from './websocket-frames.js';

/** serverFrame builds an unmasked frame, as a server sends it. */
function serverFrame(first: number, payload: Buffer): Buffer {
  const length = payload.length;
  const header =
    length < 126
      ? Buffer.of(first, length)
      : length < 65536
        ? Buffer.of(first, 126, length >> 8, length & 0xff)
        : Buffer.concat([Buffer.of(first, 127), bigLength(length)]);
  return Buffer.concat([header, payload]);
}

function bigLength(length: number): Buffer {
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64BE(BigInt(length));
  return buffer;
}

describe('encodeFrame and FrameParser', () => {
  it.each([0, 1, 125, 126, 65535, 65536, 200_000])(
    'round-trips a masked %i-byte frame without touching the caller’s buffers',
    (size) => {
      const payload = Buffer.alloc(size, 7);
      const frame = encodeFrame(OPCODE.binary, [payload.subarray(0, 3), payload.subarray(3)]);
      expect(frame[0]).toBe(0x82);
      expect((frame[1] ?? 0) & 0x80).toBe(0x80); // every client frame is masked
      expect(payload.every((byte) => byte === 7)).toBe(true);
      const frames = new FrameParser(1 << 20, { masked: true }).push(frame);
      expect(frames).toHaveLength(1);
      expect(frames[0]?.fin).toBe(true);
      expect(frames[0]?.opcode).toBe(OPCODE.binary);
      expect(frames[0]?.payload.equals(payload)).toBe(true);
    },
  );

  it('uses a different mask for each frame', () => {
    const first = encodeFrame(OPCODE.binary, [Buffer.from('same')]);
    const second = encodeFrame(OPCODE.binary, [Buffer.from('same')]);
    expect(first.subarray(2, 6).equals(second.subarray(2, 6))).toBe(false);
  });

  it('parses frames split at every byte, and several frames in one read', () => {
    const bytes = Buffer.concat([
      serverFrame(0x82, Buffer.from('first')),
      serverFrame(0x89, Buffer.from('ping')),
      serverFrame(0x82, Buffer.alloc(300, 1)),
    ]);
    for (let cut = 1; cut < bytes.length; cut += 1) {
      const parser = new FrameParser(1 << 20);
      const frames = [...parser.push(bytes.subarray(0, cut)), ...parser.push(bytes.subarray(cut))];
      expect(frames.map((frame) => [frame.opcode, frame.payload.length])).toEqual([
        [OPCODE.binary, 5],
        [OPCODE.ping, 4],
        [OPCODE.binary, 300],
      ]);
    }
    const whole = new FrameParser(1 << 20).push(bytes);
    expect(whole[0]?.payload.toString()).toBe('first');
  });

  it('parses 64-bit lengths', () => {
    const payload = Buffer.alloc(70_000, 2);
    const [frame] = new FrameParser(1 << 20).push(serverFrame(0x82, payload));
    expect(frame?.payload.length).toBe(70_000);
  });

  it.each([
    ['reserved bits', Buffer.of(0xc2, 0), 1002],
    ['an unknown opcode', Buffer.of(0x83, 0), 1002],
    ['a fragmented control frame', Buffer.of(0x09, 0), 1002],
    ['a control frame over 125 bytes', Buffer.of(0x89, 126, 0, 126), 1002],
    ['a frame over the limit', Buffer.of(0x82, 126, 0x10, 0), 1009],
    // RFC 6455 §5.1: a client MUST close the connection on a masked frame from the server.
    ['a masked frame from the server', encodeFrame(OPCODE.binary, [Buffer.from('x')]), 1002],
  ])('refuses %s', (_name, bytes, closeCode) => {
    let error: unknown;
    try {
      new FrameParser(1024).push(bytes);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(FrameProtocolError);
    expect((error as FrameProtocolError).closeCode).toBe(closeCode);
  });

  it('refuses an unmasked frame where frames come from a client', () => {
    expect(() =>
      new FrameParser(1024, { masked: true }).push(serverFrame(0x82, Buffer.of(1))),
    ).toThrow('an unmasked frame from a client');
  });

  it('parses a run of empty frames in one read, sharing one empty payload', () => {
    const bytes = Buffer.concat([
      serverFrame(0x02, Buffer.alloc(0)),
      ...Array.from({ length: 1000 }, () => serverFrame(0x00, Buffer.alloc(0))),
      serverFrame(0x80, Buffer.from('end')),
    ]);
    const frames = new FrameParser(1024).push(bytes);
    expect(frames).toHaveLength(1002);
    expect(frames.slice(0, -1).every((frame) => frame.payload.length === 0)).toBe(true);
    expect(frames.at(-1)?.payload.toString()).toBe('end');
  });
});
