import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import type { ResolvedConfig } from '@k/config';
import { testResolvedConfig } from '@k/config/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionPools } from '../transport/connection-pools.js';
import { createTransport } from '../transport/create-transport.js';
import type { Transport } from '../transport/transport.js';

// The real API server does not gzip watch streams; a fake one streaming gzip as fast as the
// socket takes it is the only way to see whether a slow consumer holds the sender back.

// One gzip member of ~1 MiB of watch-like lines (each with a random uid, so it compresses about
// as well as real objects do); gzip members concatenate, so the server sends it over and over.
const DECODED = Array.from(
  { length: 4000 },
  () =>
    `{"type":"MODIFIED","object":{"kind":"ConfigMap","metadata":{"name":"c","uid":"${randomBytes(16).toString('hex')}","resourceVersion":"${randomBytes(4).readUInt32LE()}"},"data":{"k":"${randomBytes(48).toString('base64')}"}}}\n`,
).join('');
const MEMBER = gzipSync(DECODED);
const MEMBER_DECODED_BYTES = Buffer.byteLength(DECODED);

interface StreamingServer {
  server: Server;
  origin: string;
  /** written is how many compressed bytes the server got into its socket so far. */
  written: () => number;
  close: () => Promise<void>;
}

async function startStreamingServer(): Promise<StreamingServer> {
  let written = 0;
  const responses = new Set<ServerResponse>();
  const server = createServer((_request, response) => {
    responses.add(response);
    response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    const pump = (): void => {
      while (!response.destroyed && written < 4 * 2 ** 30) {
        written += MEMBER.length;
        if (!response.write(MEMBER)) {
          response.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    server,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    written: () => written,
    close: async () => {
      for (const response of responses) response.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

const config = (server: string): ResolvedConfig => testResolvedConfig(server);

/** transportTo starts `server` on a loopback port and makes a transport to it. */
async function transportTo(server: Server): Promise<Transport> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return createTransport(config(`http://127.0.0.1:${(server.address() as AddressInfo).port}`), {
    connectionPools: new ConnectionPools(),
  });
}

let streaming: StreamingServer | undefined;
let transport: Transport | undefined;

afterEach(async () => {
  await transport?.close();
  await streaming?.close();
  transport = undefined;
  streaming = undefined;
});

describe('GzipDecodingHandler back-pressure', () => {
  it('stops the sender while the consumer of a gzip stream pauses, then resumes it', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      streaming = await startStreamingServer();
      transport = createTransport(config(streaming.origin), {
        connectionPools: new ConnectionPools(),
      });
      const response = await transport.request({ method: 'GET', path: '/watch' });
      expect(response.headers['content-encoding']).toBeUndefined();
      try {
        const chunks = response.body[Symbol.asyncIterator]();
        const read = async (bytes: number): Promise<void> => {
          for (let decoded = 0; decoded < bytes;) {
            decoded += ((await chunks.next()).value as Buffer).length;
          }
        };
        await read(MEMBER_DECODED_BYTES);
        // A slow consumer: nothing is read for a while.
        const before = process.memoryUsage().arrayBuffers;
        await delay(400);
        const writtenAfterFirstPause = streaming.written();
        await delay(600);
        const stalled = streaming.written() - writtenAfterFirstPause;
        const grown = process.memoryUsage().arrayBuffers - before;
        // Only socket and decoder buffers fill: a few MiB, not hundreds.
        expect(grown).toBeLessThan(24 << 20);
        expect(stalled).toBeLessThan(2 * MEMBER.length);
        // Reading again lets the sender go on, well past what the socket buffers held.
        const resumedFrom = streaming.written();
        await read(200 * MEMBER_DECODED_BYTES);
        expect(streaming.written() - resumedFrom).toBeGreaterThan(100 * MEMBER.length);
        expect(warnings).not.toContain('MaxListenersExceededWarning');
      } finally {
        response.body.destroy();
      }
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('passes a plain response through untouched, pausing it directly', async () => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('plain body');
    });
    try {
      transport = await transportTo(server);
      const response = await transport.request({ method: 'GET', path: '/' });
      expect(await response.body.text()).toBe('plain body');
    } finally {
      server.close();
    }
  });
});

describe('GzipDecodingHandler with one gzip member per event', () => {
  // kube-apiserver gzips a streaming list with one gzip member per flushed event. The handler
  // joins the chunks of one turn of the event loop before inflating them: a burst must decode
  // intact, and a lone event must arrive without waiting for the next.
  it('decodes a burst of members whole, and delivers each lone member before the next is sent', async () => {
    const burst = Array.from({ length: 2000 }, (_, index) => `event ${index}\n`);
    let sendNext: (() => void) | undefined;
    const server = createServer((request, response) => {
      if (request.url === '/next') {
        sendNext?.();
        response.end();
        return;
      }
      response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      for (const line of burst) response.write(gzipSync(line));
      let lone = 0;
      sendNext = () => {
        if (lone === 3) response.end();
        else response.write(gzipSync(`lone ${lone++}\n`));
      };
      sendNext();
    });
    try {
      transport = await transportTo(server);
      const response = await transport.request({ method: 'GET', path: '/watch' });
      const received: string[] = [];
      let pending = '';
      for await (const chunk of response.body) {
        pending += (chunk as Buffer).toString();
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        received.push(...lines);
        // The next lone member is sent only once this one arrived: a handler that held it back
        // for more input would wait here forever.
        if (lines.some((line) => line.startsWith('lone '))) {
          const next = await transport.request({ method: 'GET', path: '/next' });
          await next.body.text();
        }
      }
      expect(received).toEqual([
        ...burst.map((line) => line.trimEnd()),
        'lone 0',
        'lone 1',
        'lone 2',
      ]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
