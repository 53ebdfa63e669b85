import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { RestClient } from '../client/rest-client.js';
import type { RestClientOptions } from '../client/rest-client-options.js';
import { apiServerDispatcher } from '@k/transport';
import { NO_WARNINGS } from '../response/warning-handler.js';
import { RetryPolicy, type RetryPolicyOptions } from '../retry/retry-policy.js';
import { TokenBucket, type RateLimiter } from '../throttle/token-bucket.js';

/** Arrival is one request as the fake server received it. */
interface Arrival {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
  /** connection numbers the TCP connection it came on (1, 2, …). */
  connection: number;
}

/** FakeHandler answers one request; `count` is how many requests with this method and path arrived so far (1-based). */
export type FakeHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  arrival: Arrival,
  count: number,
) => void | Promise<void>;

/**
 * FakeServer is a local node:http server on port 0 that records every arrival. It exists for
 * faults a real API server cannot be made to produce on demand (429 storms, resets mid-body,
 * headers that never come, truncated bodies) — everything else is tested against the real one.
 */
export interface FakeServer {
  url: string;
  server: Server;
  arrivals: Arrival[];
  /** countOf returns how many requests arrived with this method and path (without query). */
  countOf(method: string, path: string): number;
  connections(): number;
  close(): Promise<void>;
}

export async function startFakeServer(handler: FakeHandler): Promise<FakeServer> {
  const arrivals: Arrival[] = [];
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
      const arrival: Arrival = {
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

/** json answers with a JSON body. */
export function json(
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

/** TestClient is a RestClient on a fresh undici Agent, closed by `close()`. */
export interface TestClient {
  client: RestClient;
  agent: Agent;
  close(): Promise<void>;
}

export function testClient(
  url: string,
  options: {
    throttle?: RateLimiter;
    retry?: RetryPolicyOptions;
    client?: RestClientOptions;
    agent?: Agent.Options;
  } = {},
): TestClient {
  const agent = new Agent(options.agent);
  const client = new RestClient(apiServerDispatcher(agent, url), {
    throttle: options.throttle ?? TokenBucket.unlimited(),
    retry: new RetryPolicy({ initialBackoffMs: 1, maxBackoffMs: 5, ...options.retry }),
    warningHandler: NO_WARNINGS,
    ...options.client,
  });
  return { client, agent, close: () => agent.close() };
}
