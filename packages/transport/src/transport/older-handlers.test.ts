import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { testResolvedConfig } from '@k/config/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransport } from './create-transport.js';

// Node 22's and 24's global fetch (undici 6 and 7 inside Node) and a program's own undici 7 call
// a dispatcher with handlers of undici's older shape: onConnect, onHeaders, onData, onComplete,
// onError. undici 8's pools call only the newer shape, so the transport adapts them.

/** OlderHandlerEvents is what a handler of the older shape was told, in order. */
type OlderHandlerEvents = (string | number)[];

function olderHandler(events: OlderHandlerEvents, done: () => void) {
  return {
    onConnect: () => events.push('connect'),
    onHeaders: (statusCode: number) => {
      events.push(statusCode);
      return true;
    },
    onData: (chunk: Buffer) => {
      events.push(chunk.toString());
      return true;
    },
    onComplete: () => {
      events.push('complete');
      done();
    },
    onError: (error: Error & { code?: string }) => {
      events.push(error.code ?? error.message);
      done();
    },
  };
}

describe('a transport called with handlers of the older shape', () => {
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    server = createServer((_request, response) => response.end('{"kind":"Status"}'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.close();
    await once(server, 'close');
  });

  it('tells them the response: connect, headers, data, complete', async () => {
    const transport = createTransport(testResolvedConfig(origin));
    const events: OlderHandlerEvents = [];
    await new Promise<void>((resolve) => {
      // The older shape is what the dispatcher's declared types no longer name.
      transport.dispatch({ method: 'GET', path: '/api' }, olderHandler(events, resolve) as never);
    });
    await transport.close();
    expect(events).toEqual(['connect', 200, '{"kind":"Status"}', 'complete']);
  });

  it("tells them a closed transport's error through onError", async () => {
    const transport = createTransport(testResolvedConfig(origin));
    await transport.close();
    const events: OlderHandlerEvents = [];
    await new Promise<void>((resolve) => {
      transport.dispatch({ method: 'GET', path: '/api' }, olderHandler(events, resolve) as never);
    });
    expect(events).toEqual(['ERR_TRANSPORT_CLOSED']);
  });

  it("serves this runtime's global fetch given as its dispatcher", async () => {
    const transport = createTransport(testResolvedConfig(origin));
    // Node's fetch types name undici-types' Dispatcher, another declaration of the same class.
    const init = { dispatcher: transport } as unknown as RequestInit;
    const response = await fetch(`${origin}/api`, init);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ kind: 'Status' });
    await transport.close();
  });
});
