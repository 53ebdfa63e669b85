import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startRecordingServer, type RecordingServer } from '../__fixtures__/recording-server.js';
import { PortForwardError } from '../errors.js';
import { createCoreV1Client } from '../generated/core/v1/index.js';

// A local server that takes the port-forward upgrade and writes megabytes on the port's error
// stream: a kubelet writes one short line there, and cannot be made to write more.
let server: RecordingServer | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await server?.close();
  server = undefined;
});

/** frame is one unmasked server frame (FIN set) with `opcode` and `payload`. */
function frame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const header =
    length < 126
      ? Buffer.of(0x80 | opcode, length)
      : length < 65536
        ? Buffer.of(0x80 | opcode, 126, length >> 8, length & 0xff)
        : Buffer.concat([Buffer.of(0x80 | opcode, 127), Buffer.alloc(8)]);
  if (length >= 65536) header.writeBigUInt64BE(BigInt(length), 2);
  return Buffer.concat([header, payload]);
}

function accept(request: IncomingMessage): string {
  return createHash('sha1')
    .update(`${String(request.headers['sec-websocket-key'])}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
    .digest('base64');
}

describe('portForwardStream (local raw-frame server)', () => {
  it('quotes at most 4 KiB of the error stream, without control characters', async () => {
    server = await startRecordingServer();
    server.server.on('upgrade', (request: IncomingMessage, socket: Socket) => {
      sockets.push(socket);
      socket.on('error', () => undefined);
      socket.write(
        'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
          `Sec-WebSocket-Accept: ${accept(request)}\r\nSec-WebSocket-Protocol: v4.channel.k8s.io\r\n\r\n`,
      );
      // Each channel's first message is the port (8080, little-endian).
      socket.write(frame(0x2, Buffer.of(0, 0x90, 0x1f)));
      socket.write(frame(0x2, Buffer.of(1, 0x90, 0x1f)));
      const line = Buffer.from('\u001b[2J\u202eerror €\r\n'.repeat(4096));
      for (let index = 0; index < 32; index += 1) {
        socket.write(frame(0x2, Buffer.concat([Buffer.of(1), line])));
      }
      socket.end(frame(0x8, Buffer.of(0x03, 0xe8)));
    });
    const pods = createCoreV1Client(server.client).pods('ns');
    const stream = await pods.portForwardStream('p', 8080);
    const error = await new Promise<Error>((resolve) => stream.once('error', resolve));
    stream.destroy();
    expect(error).toBeInstanceOf(PortForwardError);
    expect(error.message.length).toBeLessThanOrEqual(4096);
    expect(error.message).toMatch(/^\[2Jerror €\n\[2Jerror €\n.*…$/s);
    // eslint-disable-next-line no-control-regex -- no control character may reach the message
    expect(error.message).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e\ufffd]/);
  });
});
