import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** TestServerArrival is one request as a {@link TestServer} received it. */
export interface TestServerArrival {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** at is `performance.now()` when the body had arrived. */
  at: number;
  /** connection numbers the TCP connection it came on (1, 2, …). */
  connection: number;
}

/**
 * TestServerHandler answers one request, after its body arrived; `count` is how many requests
 * with this method and path (without query) arrived so far, this one included.
 */
export type TestServerHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  arrival: TestServerArrival,
  count: number,
) => void | Promise<void>;

/**
 * TestServer is a local node:http server on port 0 that records every request. Unit tests use it
 * for an HTTP mapping (method, path, query, headers, body) and for faults a real API server cannot
 * be made to produce on demand (429 storms, resets mid-body, headers that never come); everything
 * else is tested against the real kube-apiserver in e2e/.
 */
export interface TestServer {
  url: string;
  server: Server;
  arrivals: TestServerArrival[];
  /** countOf returns how many requests arrived with this method and path (without query). */
  countOf(method: string, path: string): number;
  /** connections returns how many TCP connections were opened so far. */
  connections(): number;
  close(): Promise<void>;
}

/** startTestServer starts a {@link TestServer} on 127.0.0.1 answering with `handler`. */
export async function startTestServer(handler: TestServerHandler): Promise<TestServer> {
  const arrivals: TestServerArrival[] = [];
  const counts = new Map<string, number>();
  let connectionCount = 0;
  const connectionIds = new WeakMap<object, number>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = (request.url ?? '').split('?')[0] ?? '';
      const key = `${request.method} ${path}`;
      const count = (counts.get(key) ?? 0) + 1;
      counts.set(key, count);
      const arrival: TestServerArrival = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
        connection: connectionIds.get(request.socket) ?? 0,
      };
      arrivals.push(arrival);
      void Promise.resolve(handler(request, response, arrival, count)).catch((error: unknown) => {
        response.destroy(error as Error);
      });
    });
  });
  server.on('connection', (socket) => {
    connectionCount += 1;
    connectionIds.set(socket, connectionCount);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    arrivals,
    countOf: (method, path) => counts.get(`${method} ${path}`) ?? 0,
    connections: () => connectionCount,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** respondJson answers with `body` as JSON (`content-type` defaults to `application/json`). */
export function respondJson(
  response: ServerResponse,
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(statusCode, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}
