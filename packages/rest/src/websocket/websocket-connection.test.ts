import { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FrameParser, OPCODE } from './websocket-frames.js';
import { WebSocketConnection } from './websocket-connection.js';

// A socket that takes writes but does not drain them until released: a server that sends and
// never reads. The real API server cannot be made to stop reading; a local TCP peer would hide
// the client's queue behind the kernel's socket buffers of several MB.
class StalledSocket extends Duplex {
  /** sent is what reached the wire, in order. */
  readonly sent: Buffer[] = [];
  #held: [Buffer, (error?: Error | null) => void][] = [];
  #stalled = true;

  constructor() {
    super({ writableHighWaterMark: 1024 });
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: string, callback: (error?: Error | null) => void) {
    if (this.#stalled) {
      this.#held.push([chunk, callback]);
      return;
    }
    this.sent.push(chunk);
    callback();
  }

  release(): void {
    this.#stalled = false;
    for (const [chunk, callback] of this.#held.splice(0)) {
      this.sent.push(chunk);
      callback();
    }
  }
}

function ping(text: string): Buffer {
  const payload = Buffer.from(text);
  return Buffer.concat([Buffer.of(0x89, payload.length), payload]);
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('WebSocketConnection (a socket that does not drain)', () => {
  it('answers only the latest ping while the socket is full, once it drains', async () => {
    const socket = new StalledSocket();
    const connection = new WebSocketConnection(
      socket,
      '',
      { method: 'GET', path: '/exec' },
      { pingIntervalMs: 0 },
    );
    let drains = 0;
    connection.on('drain', () => (drains += 1));
    for (let round = 0; round < 100; round += 1) {
      socket.push(
        Buffer.concat(Array.from({ length: 100 }, (_, index) => ping(`p${round * 100 + index}`))),
      );
      await tick();
    }
    // 10,000 pings: their pongs stop queueing at the socket's high-water mark.
    expect(socket.writableLength).toBeLessThan(1024 + 64);
    socket.release();
    await tick();
    expect(drains).toBe(1);
    const parser = new FrameParser(1024, { masked: true });
    const pongs = socket.sent.flatMap((chunk) => parser.push(chunk));
    expect(pongs.every((frame) => frame.opcode === OPCODE.pong)).toBe(true);
    expect(pongs.length).toBeLessThan(200);
    // The one owed is the latest ping's (RFC 6455 §5.5.3).
    expect(pongs.at(-1)?.payload.toString()).toBe('p9999');
    connection.destroy();
  });
});
