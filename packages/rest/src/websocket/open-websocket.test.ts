import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { apiServerDispatcher } from '@k/transport';
import { caught } from '@k/test-utils';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { RestClient } from '../client/rest-client.js';
import { ApiError, ConnectionError, RequestBuildError, WebSocketError } from '../errors.js';
import { TokenBucket } from '../throttle/token-bucket.js';
import { FrameParser, OPCODE, encodeFrame, type WebSocketFrame } from './websocket-frames.js';
import type { WebSocketOptions } from './open-websocket.js';
import type { WebSocketClose, WebSocketConnection } from './websocket-connection.js';

// A local server that speaks raw RFC 6455 frames, for what the real API server cannot be made
// to do on demand: fragment messages, ping, break the handshake, send bad frames, drop the
// connection without a close frame. exec/attach/port-forward against the real server are in
// packages/clientset/e2e.

type UpgradeScript = (socket: Socket, request: IncomingMessage, accept: string) => void;

interface Peer {
  url: string;
  /** received are the frames the client sent, unmasked. */
  received: WebSocketFrame[];
  sockets: Socket[];
}

let server: Server | undefined;
let agent: Agent | undefined;

afterEach(async () => {
  await agent?.close();
  if (server) {
    server.closeAllConnections();
    server.close();
  }
  server = undefined;
  agent = undefined;
});

function acceptKey(request: IncomingMessage): string {
  return createHash('sha1')
    .update(`${String(request.headers['sec-websocket-key'])}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
    .digest('base64');
}

function switching(accept: string, protocol = 'v5.channel.k8s.io', extra = ''): string {
  return (
    'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
    `Sec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: ${protocol}\r\n${extra}\r\n`
  );
}

function frame(first: number, payload: Buffer | string): Buffer {
  const body = Buffer.from(payload);
  return Buffer.concat([Buffer.of(first, body.length), body]);
}

async function startPeer(script: UpgradeScript): Promise<Peer> {
  const received: WebSocketFrame[] = [];
  const sockets: Socket[] = [];
  server = createServer();
  server.on('upgrade', (request: IncomingMessage, socket: Socket) => {
    sockets.push(socket);
    const parser = new FrameParser(1 << 20, { masked: true });
    socket.on('data', (chunk: Buffer) => received.push(...parser.push(chunk)));
    socket.on('error', () => undefined);
    script(socket, request, acceptKey(request));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return { url, received, sockets };
}

function client(url: string): RestClient {
  agent = new Agent();
  return new RestClient(apiServerDispatcher(agent, url), { throttle: TokenBucket.unlimited() });
}

function open(
  url: string,
  protocols = ['v5.channel.k8s.io'],
  options: Omit<WebSocketOptions, 'protocols'> = {},
): Promise<WebSocketConnection> {
  return client(url)
    .get()
    .namespace('ns')
    .resource('pods')
    .name('p')
    .subresource('exec')
    .webSocket({ protocols, ...options });
}

function closed(connection: WebSocketConnection): Promise<WebSocketClose> {
  return new Promise((resolve) => connection.once('close', resolve));
}

describe('openWebSocket and WebSocketConnection (local raw-frame server)', () => {
  it('sends the upgrade with key, version and protocols; reassembles fragments; answers pings; closes cleanly', async () => {
    let upgrade: IncomingMessage | undefined;
    const peer = await startPeer((socket, request, accept) => {
      upgrade = request;
      socket.write(switching(accept));
      socket.write(
        Buffer.concat([
          frame(0x02, 'frag'),
          frame(0x89, 'are you there'),
          frame(0x80, 'mented'),
          frame(0x82, 'whole'),
        ]),
      );
      setTimeout(() => socket.end(frame(0x88, Buffer.of(0x03, 0xe8))), 50);
    });
    const connection = await open(peer.url, ['v5.channel.k8s.io', 'v4.channel.k8s.io']);
    expect(upgrade?.headers['sec-websocket-protocol']).toBe('v5.channel.k8s.io, v4.channel.k8s.io');
    expect(upgrade?.headers['sec-websocket-version']).toBe('13');
    expect(upgrade?.headers.upgrade).toBe('websocket');
    expect(upgrade?.url).toBe('/api/v1/namespaces/ns/pods/p/exec');
    expect(connection.protocol).toBe('v5.channel.k8s.io');
    const messages: string[] = [];
    connection.on('message', (data: Buffer) => messages.push(data.toString()));
    connection.send(Buffer.from('hello'));
    const close = await closed(connection);
    expect(messages).toEqual(['fragmented', 'whole']);
    expect(close).toEqual({ code: 1000, reason: '', error: undefined });
    const sent = peer.received.map((item) => [item.opcode, item.payload.toString('latin1')]);
    expect(sent).toContainEqual([OPCODE.binary, 'hello']);
    expect(sent).toContainEqual([OPCODE.pong, 'are you there']);
    // The close is echoed with its code.
    expect(sent).toContainEqual([OPCODE.close, '\u0003\u00e8']);
  });

  it('pings the server while the session is quiet', async () => {
    const peer = await startPeer((socket, _request, accept) => socket.write(switching(accept)));
    const connection = await open(peer.url, undefined, { pingIntervalMs: 20 });
    await new Promise((resolve) => setTimeout(resolve, 120));
    const pings = peer.received.filter((item) => item.opcode === OPCODE.ping).length;
    const ending = closed(connection);
    connection.close();
    peer.sockets[0]?.end(frame(0x88, Buffer.of(0x03, 0xe8)));
    await ending;
    expect(pings).toBeGreaterThanOrEqual(2);
  });

  it('gives up on a server that stops answering pings (pong deadline)', async () => {
    // The peer accepts, then never writes again: a dead process or a dropped network.
    const peer = await startPeer((socket, _request, accept) => socket.write(switching(accept)));
    const connection = await open(peer.url, undefined, { pingIntervalMs: 20, pongTimeoutMs: 80 });
    const started = Date.now();
    const close = await closed(connection);
    expect(close.code).toBe(1006);
    expect(close.error).toBeInstanceOf(WebSocketError);
    expect(close.error?.code).toBe('ERR_REST_WEBSOCKET_PONG_TIMEOUT');
    expect(close.error?.message).toBe(
      'websocket /api/v1/namespaces/ns/pods/p/exec: the server sent nothing for 80 ms after a ping (no pong): the connection is dead',
    );
    // The first ping goes out after 20 ms, the deadline 80 ms later.
    expect(Date.now() - started).toBeGreaterThanOrEqual(95);
    // The TCP connection itself is given up: the peer sees this side end it.
    const socket = peer.sockets[0] as Socket;
    if (!socket.readableEnded) await once(socket, 'end');
  });

  it('keeps a connection whose server answers the pings', async () => {
    const peer = await startPeer((socket, _request, accept) => {
      socket.write(switching(accept));
      const parser = new FrameParser(1 << 20, { masked: true });
      socket.on('data', (chunk: Buffer) => {
        for (const item of parser.push(chunk)) {
          if (item.opcode === OPCODE.ping) socket.write(frame(0x8a, item.payload));
        }
      });
    });
    const connection = await open(peer.url, undefined, { pingIntervalMs: 20, pongTimeoutMs: 50 });
    let ended: WebSocketClose | undefined;
    connection.once('close', (close: WebSocketClose) => (ended = close));
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(ended).toBeUndefined();
    expect(peer.received.filter((item) => item.opcode === OPCODE.ping).length).toBeGreaterThan(5);
    const ending = closed(connection);
    connection.close();
    peer.sockets[0]?.end(frame(0x88, Buffer.of(0x03, 0xe8)));
    expect((await ending).error).toBeUndefined();
  });

  it('does not count the time this side paused reading against the server', async () => {
    // The server is silent, but so would be a live one whose pong waits behind unread data.
    const peer = await startPeer((socket, _request, accept) => socket.write(switching(accept)));
    const connection = await open(peer.url, undefined, { pingIntervalMs: 20, pongTimeoutMs: 60 });
    connection.pause();
    let ended: WebSocketClose | undefined;
    connection.once('close', (close: WebSocketClose) => (ended = close));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ended).toBeUndefined();
    const ending = closed(connection);
    connection.resume();
    expect((await ending).error?.code).toBe('ERR_REST_WEBSOCKET_PONG_TIMEOUT');
  });

  it('does not fail a close it started because the server then stays silent', async () => {
    const peer = await startPeer((socket, _request, accept) => socket.write(switching(accept)));
    const connection = await open(peer.url, undefined, {
      pingIntervalMs: 20,
      pongTimeoutMs: 60,
      closeTimeoutMs: 200,
    });
    await new Promise((resolve) => setTimeout(resolve, 30)); // a ping is out, its deadline runs
    const ending = closed(connection);
    connection.close();
    // The server never answers the close either: the close timeout ends it, without an error.
    expect((await ending).error).toBeUndefined();
  });

  it('refuses keep-alive settings that are not durations, before sending', async () => {
    const peer = await startPeer((socket) => socket.destroy());
    const error = await caught(open(peer.url, undefined, { pongTimeoutMs: -1 }));
    expect(error).toBeInstanceOf(RequestBuildError);
    expect((error as Error).message).toBe(
      'webSocket options.pongTimeoutMs must be a number of 0 or more, got number -1',
    );
    expect(peer.sockets).toHaveLength(0);
  });

  it('holds messages back while paused and delivers them in order on resume', async () => {
    const peer = await startPeer((socket, _request, accept) => {
      socket.write(switching(accept));
      socket.write(Buffer.concat([frame(0x82, 'one'), frame(0x82, 'two'), frame(0x82, 'three')]));
      socket.end(frame(0x88, Buffer.of(0x03, 0xe8)));
    });
    const connection = await open(peer.url);
    const messages: string[] = [];
    connection.on('message', (data: Buffer) => {
      messages.push(data.toString());
      if (messages.length === 1) connection.pause();
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(messages).toEqual(['one']);
    const ending = closed(connection);
    connection.resume();
    expect((await ending).error).toBeUndefined();
    expect(messages).toEqual(['one', 'two', 'three']);
  });

  it('delivers the messages it read before the connection was reset, then the error', async () => {
    // A reset (RST) while this side is paused must not throw away output that already arrived.
    const peer = await startPeer((socket, _request, accept) => {
      socket.write(switching(accept));
      socket.write(Buffer.concat([frame(0x82, 'one'), frame(0x82, 'two'), frame(0x82, 'three')]));
      setTimeout(() => socket.resetAndDestroy(), 50);
    });
    const connection = await open(peer.url);
    const messages: string[] = [];
    connection.on('message', (data: Buffer) => {
      messages.push(data.toString());
      if (messages.length === 1) connection.pause();
    });
    const ending = closed(connection);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Writing after the reset makes the socket fail while this side still holds two messages.
    connection.send(Buffer.from('late'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(messages).toEqual(['one']);
    connection.resume();
    const close = await ending;
    expect(messages).toEqual(['one', 'two', 'three']);
    expect(close.error).toBeInstanceOf(WebSocketError);
    expect(close.error?.code).toBe('ERR_REST_WEBSOCKET_CLOSED');
  });

  it('delivers nothing that follows a protocol violation', async () => {
    const peer = await startPeer((socket, _request, accept) => {
      socket.write(switching(accept));
      // A continuation frame with no message before it, between two good messages.
      socket.write(Buffer.concat([frame(0x82, 'one'), frame(0x80, 'x'), frame(0x82, 'two')]));
    });
    const connection = await open(peer.url);
    const messages: string[] = [];
    connection.on('message', (data: Buffer) => messages.push(data.toString()));
    const close = await closed(connection);
    expect(close.error?.code).toBe('ERR_REST_WEBSOCKET_PROTOCOL');
    expect(messages).toEqual(['one']);
  });

  it('drops what it holds back when the caller destroys the connection', async () => {
    const peer = await startPeer((socket, _request, accept) => {
      socket.write(switching(accept));
      socket.write(Buffer.concat([frame(0x82, 'one'), frame(0x82, 'two')]));
    });
    const connection = await open(peer.url);
    const messages: string[] = [];
    connection.on('message', (data: Buffer) => {
      messages.push(data.toString());
      connection.pause();
    });
    const ending = closed(connection);
    await new Promise((resolve) => setTimeout(resolve, 50));
    connection.destroy();
    await ending;
    connection.resume();
    expect(messages).toEqual(['one']);
  });

  it('turns a refused upgrade into the ApiError of its Status', async () => {
    const peer = await startPeer((socket) => {
      const body = JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        message: 'pods "p" is forbidden',
        reason: 'Forbidden',
        code: 403,
      });
      socket.end(
        `HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
    });
    const error = await caught(open(peer.url));
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).statusCode).toBe(403);
    expect((error as ApiError).reason).toBe('Forbidden');
  });

  it.each([
    ['a wrong accept key', (accept: string) => switching(`${accept.slice(1)}x`), 'Accept'],
    ['a protocol not offered', (accept: string) => switching(accept, 'v9.channel.k8s.io'), 'v9'],
    [
      'an extension not offered',
      (accept: string) => switching(accept, 'v5.channel.k8s.io', 'Sec-WebSocket-Extensions: x\r\n'),
      'extension',
    ],
  ])('refuses a handshake with %s', async (_name, answer, mention) => {
    const peer = await startPeer((socket, _request, accept) => socket.write(answer(accept)));
    const error = await caught(open(peer.url));
    expect(error).toBeInstanceOf(WebSocketError);
    expect((error as WebSocketError).code).toBe('ERR_REST_WEBSOCKET_HANDSHAKE');
    expect((error as Error).message).toContain(mention);
  });

  it('fails a connection refused before the upgrade with a ConnectionError', async () => {
    const peer = await startPeer((socket) => socket.destroy());
    const error = await caught(open(peer.url));
    expect(error).toBeInstanceOf(ConnectionError);
  });

  it('reports an end without a close frame as ERR_REST_WEBSOCKET_CLOSED (1006)', async () => {
    const peer = await startPeer((socket, _request, accept) => {
      socket.write(switching(accept));
      setTimeout(() => socket.destroy(), 20);
    });
    const close = await closed(await open(peer.url));
    expect(close.code).toBe(1006);
    expect(close.error?.code).toBe('ERR_REST_WEBSOCKET_CLOSED');
  });

  it('closes with 1002 on a bad frame and 1009 on an oversized one', async () => {
    const peer = await startPeer((socket, _request, accept) => {
      socket.write(switching(accept));
      socket.write(Buffer.of(0xc2, 0));
    });
    const close = await closed(await open(peer.url));
    expect(close.error?.code).toBe('ERR_REST_WEBSOCKET_PROTOCOL');
    expect(close.error?.closeCode).toBe(1002);

    const big = await startPeer((socket, _request, accept) => {
      socket.write(switching(accept));
      socket.write(Buffer.of(0x82, 126, 0x10, 0));
    });
    const connection = await open(big.url, undefined, { maxMessageBytes: 1024 });
    const oversized = await closed(connection);
    expect(oversized.error?.closeCode).toBe(1009);
  });

  it('reassembles a message whose first fragment is empty, and one of as many fragments as allowed', async () => {
    const peer = await startPeer((socket, _request, accept) => {
      socket.write(switching(accept));
      socket.write(
        Buffer.concat([
          // A legal empty first fragment, an empty middle one, the data last.
          frame(0x02, ''),
          frame(0x00, ''),
          frame(0x80, 'after empty'),
          // Four fragments: the limit below.
          frame(0x01, 'a'),
          frame(0x00, ''),
          frame(0x00, 'b'),
          frame(0x80, 'c'),
        ]),
      );
      socket.end(frame(0x88, Buffer.of(0x03, 0xe8)));
    });
    const connection = await open(peer.url, undefined, { maxMessageFragments: 4 });
    const messages: [string, boolean][] = [];
    connection.on('message', (data: Buffer, binary: boolean) =>
      messages.push([data.toString(), binary]),
    );
    const close = await closed(connection);
    expect(messages).toEqual([
      ['after empty', true],
      ['abc', false],
    ]);
    expect(close.error).toBeUndefined();
  });

  it('closes with 1009 on a message in more fragments than allowed, empty ones included', async () => {
    // Empty continuation frames add no bytes: 8 MB of them became 854 MB of heap and 28 s of CPU.
    const peer = await startPeer((socket, _request, accept) => {
      socket.write(switching(accept));
      const empty = Buffer.of(0x00, 0x00);
      socket.write(
        Buffer.concat([
          frame(0x02, 'a'),
          ...Array.from({ length: 20_000 }, () => empty),
          frame(0x80, 'b'),
        ]),
      );
      socket.end(frame(0x88, Buffer.of(0x03, 0xe8)));
    });
    const connection = await open(peer.url);
    const messages: Buffer[] = [];
    connection.on('message', (data: Buffer) => messages.push(data));
    const close = await closed(connection);
    expect(messages).toEqual([]);
    expect(close.error?.code).toBe('ERR_REST_WEBSOCKET_PROTOCOL');
    expect(close.error?.closeCode).toBe(1009);
    expect(close.error?.message).toBe(
      'websocket /api/v1/namespaces/ns/pods/p/exec: a message in more than 16384 fragments (frames)',
    );
    const socket = peer.sockets[0] as Socket;
    if (!socket.readableEnded && !socket.destroyed) {
      await new Promise((resolve) => socket.once('end', resolve).once('close', resolve));
    }
    const sent = peer.received.filter((item) => item.opcode === OPCODE.close);
    expect(sent.map((item) => item.payload.readUInt16BE(0))).toEqual([1009]);
  });

  it('closes with 1002 on a masked frame from the server', async () => {
    const peer = await startPeer((socket, _request, accept) => {
      socket.write(switching(accept));
      // encodeFrame masks, as a client does; RFC 6455 §5.1 makes the client close on it.
      socket.write(encodeFrame(OPCODE.binary, [Buffer.from('masked')]));
      socket.end(frame(0x88, Buffer.of(0x03, 0xe8)));
    });
    const connection = await open(peer.url);
    const messages: Buffer[] = [];
    connection.on('message', (data: Buffer) => messages.push(data));
    const close = await closed(connection);
    expect(messages).toEqual([]);
    expect(close.error?.closeCode).toBe(1002);
    expect(close.error?.message).toBe(
      'websocket /api/v1/namespaces/ns/pods/p/exec: a masked frame from the server',
    );
  });

  it('reports a server close with an error code', async () => {
    const peer = await startPeer((socket, _request, accept) => {
      socket.write(switching(accept));
      socket.end(frame(0x88, Buffer.concat([Buffer.of(0x03, 0xf3), Buffer.from('boom')])));
    });
    const close = await closed(await open(peer.url));
    expect(close.code).toBe(1011);
    expect(close.error?.message).toContain('1011 (boom)');
  });

  it('destroys the connection when the request signal aborts after the upgrade', async () => {
    const peer = await startPeer((socket, _request, accept) => socket.write(switching(accept)));
    const controller = new AbortController();
    const connection = await client(peer.url)
      .get()
      .resource('pods')
      .name('p')
      .subresource('exec')
      .signal(controller.signal)
      .webSocket({ protocols: ['v5.channel.k8s.io'] });
    const ending = closed(connection);
    controller.abort();
    expect((await ending).code).toBe(1006);
    expect(peer.sockets).toHaveLength(1);
  });
});
