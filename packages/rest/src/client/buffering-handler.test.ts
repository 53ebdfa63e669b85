// A local Node HTTP server, not the real API server: these tests need answers of chosen sizes and
// a connection reset before any answer, which kube-apiserver does not give on demand.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RestRequest } from '../request/rest-request.js';
import { BufferingHandler } from './buffering-handler.js';
import { RequestScope } from './request-scope.js';

const LIMIT = 1024;
const routes: Record<string, (response: ServerResponse) => void> = {
  '/big-ok': (response) => response.end('a'.repeat(64 * 1024)),
  '/big-error': (response) => {
    response.writeHead(500, { 'content-type': 'application/json' });
    // Written in pieces and never ended: the handler must settle at the limit on its own.
    response.write('{"kind":"Status",');
    const timer = setInterval(() => response.write('x'.repeat(512)), 5);
    response.on('close', () => clearInterval(timer));
  },
  '/small-error': (response) => {
    response.writeHead(404);
    response.end('{"kind":"Status","code":404}');
  },
  '/reset': (response) => response.socket?.destroy(),
  '/hang': () => undefined,
};

let server: Server;
let client: Client;

beforeAll(async () => {
  server = createServer((request, response) => routes[request.url ?? '']?.(response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new Client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});

afterAll(async () => {
  await client.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function request(path: string, signal?: AbortSignal): RestRequest {
  return {
    method: 'GET',
    path,
    query: '',
    headers: {},
    body: undefined,
    timeoutMs: undefined,
    signal,
    maxRetries: undefined,
    group: '',
    resource: '',
    name: '',
  };
}

function send(path: string, signal?: AbortSignal) {
  const scope = new RequestScope(request(path, signal), 0);
  const handler = new BufferingHandler(scope, LIMIT);
  client.dispatch({ method: 'GET', path }, handler);
  return handler.promise.finally(() => scope.release());
}

describe('BufferingHandler', () => {
  it('keeps a 2xx body whole, however far past the error limit', async () => {
    const attempt = await send('/big-ok');
    expect(attempt.statusCode).toBe(200);
    expect(attempt.body.length).toBe(64 * 1024);
    expect(attempt.failure).toBeUndefined();
  });

  it('keeps an error body up to the limit and settles without waiting for its end', async () => {
    const attempt = await send('/big-error');
    expect(attempt.statusCode).toBe(500);
    expect(attempt.body.length).toBe(LIMIT);
    expect(attempt.body.subarray(0, 17).toString()).toBe('{"kind":"Status",');
  });

  it('keeps a small error body whole', async () => {
    const attempt = await send('/small-error');
    expect(attempt.statusCode).toBe(404);
    expect(JSON.parse(attempt.body.toString())).toEqual({ kind: 'Status', code: 404 });
  });

  it('rejects with the connection error when no answer came', async () => {
    await expect(send('/reset')).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
  });

  it("rejects with the caller's reason when it aborts before the answer", async () => {
    const controller = new AbortController();
    const pending = send('/hang', controller.signal);
    setTimeout(() => controller.abort(new Error('caller gave up')), 20);
    await expect(pending).rejects.toThrow('caller gave up');
  });
});
