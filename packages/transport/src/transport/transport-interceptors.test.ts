import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { ResolvedConfig } from '@k/config';
import type { Dispatcher } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { observer, type Seen } from '../../e2e/support/observing-interceptor.js';
import type { CredentialProvider, Credentials } from '../auth/credential-provider.js';
import { ConnectionPools } from './connection-pools.js';
import { createTransport, type TransportOptions } from './create-transport.js';
import { describeTransportStack } from './describe-transport-stack.js';
import type { TransportInterceptor } from './transport-interceptor.js';

/** A provider that hands out `token-<generation>` and asks for a replay after a 401. */
class RotatingProvider implements CredentialProvider {
  readonly kind = 'rotating';
  generation = 1;

  getCredentials(): Promise<Credentials> {
    return Promise.resolve({ authorization: `Bearer token-${this.generation}` });
  }

  invalidate(): boolean {
    this.generation += 1;
    return true;
  }
}

describe('user interceptors against a local HTTP server (the real one hides gzip and cannot script 401-then-200)', () => {
  let server: Server;
  let origin: string;
  const arrivals: IncomingHttpHeaders[] = [];
  const pools = new ConnectionPools();
  const large = JSON.stringify({ items: Array.from({ length: 2000 }, (_, index) => ({ index })) });
  let provider: RotatingProvider;
  let log: Seen[];

  beforeAll(async () => {
    server = createServer((request, response) => {
      arrivals.push(request.headers);
      request.resume();
      request.on('end', () => {
        if (request.url === '/auth' && request.headers.authorization !== 'Bearer token-2') {
          response.writeHead(401, { 'content-type': 'application/json' });
          response.end('{"kind":"Status","code":401}');
        } else if (request.url === '/gzip' && request.headers['accept-encoding'] === 'gzip') {
          response.writeHead(200, { 'content-encoding': 'gzip' });
          response.end(gzipSync(large));
        } else {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end('{}');
        }
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.close();
    await once(server, 'close');
  });

  beforeEach(() => {
    provider = new RotatingProvider();
    log = [];
    arrivals.length = 0;
  });

  function config(overrides: Partial<ResolvedConfig> = {}): ResolvedConfig {
    return {
      server: origin,
      contextName: 'c',
      clusterName: 'c',
      userName: 'u',
      namespace: 'default',
      namespaceExplicit: false,
      tls: { insecure: false },
      auth: { kind: 'auth-provider', name: 'rotating', config: new Map(), userName: 'u' },
      impersonation: { user: 'jane', groups: [], extra: new Map() },
      disableCompression: false,
      source: 'kubeconfig',
      ...overrides,
    };
  }

  function transport(options: TransportOptions, overrides: Partial<ResolvedConfig> = {}) {
    return createTransport(config(overrides), {
      connectionPools: pools,
      credentialProviderFactories: [{ kind: 'rotating', create: () => provider }],
      appName: 'interceptor-test',
      ...options,
    });
  }

  /** Every position once, so each test sees the request at all three. */
  const everyPosition = () => ({
    interceptors: [
      observer('at-wire', 'wire', log),
      observer('at-decorated', 'decorated', log),
      observer('at-request', 'request', log),
    ],
  });

  it('places user interceptors at their named positions, ordered by priority, and prints the order', async () => {
    const client = transport({
      interceptors: [
        observer('wire-logger', 'wire', log),
        observer('late', 'request', log, 'low'),
        observer('tracer', 'request', log),
        observer('first', 'request', log, 'high'),
        observer('header-check', 'decorated', log),
        observer('second-tracer', 'request', log),
      ],
    });
    try {
      expect(describeTransportStack(client)).toBe(
        'first → tracer → second-tracer → late → impersonation → user-agent → header-check' +
          ' → auth → compression → wire-logger → pool',
      );
      expect(describeTransportStack(client.stack)).toBe(describeTransportStack(client));
      expect(client.stack.slice(0, 5)).toEqual([
        { name: 'first', builtin: false, position: 'request' },
        { name: 'tracer', builtin: false, position: 'request' },
        { name: 'second-tracer', builtin: false, position: 'request' },
        { name: 'late', builtin: false, position: 'request' },
        { name: 'impersonation', builtin: true, position: undefined },
      ]);
      expect(Object.isFrozen(client.stack)).toBe(true);
      const response = await client.request({ method: 'GET', path: '/plain' });
      await response.body.dump();
      // They run in the order printed.
      expect(log.map((seen) => seen.observer)).toEqual([
        'first',
        'tracer',
        'second-tracer',
        'late',
        'header-check',
        'wire-logger',
      ]);
    } finally {
      await client.close();
    }
  });

  it("shows each position what it is named after: the caller's request, the decorated one, the wire", async () => {
    const client = transport(everyPosition());
    try {
      const response = await client.request({
        method: 'GET',
        path: '/plain',
        headers: { accept: 'application/json' },
      });
      await response.body.dump();
      const [request, decorated, wire] = log;
      expect(request?.observer).toBe('at-request');
      expect(request?.headers).toEqual({ accept: 'application/json' });
      expect(decorated?.headers).toEqual({
        accept: 'application/json',
        'impersonate-user': 'jane',
        'user-agent': expect.stringMatching(/^k\/.* interceptor-test$/) as string,
      });
      expect(wire?.headers).toEqual({
        ...decorated?.headers,
        authorization: 'Bearer token-1',
        'accept-encoding': 'gzip',
      });
      // What the wire position saw is what arrived.
      expect(arrivals.at(-1)?.authorization).toBe('Bearer token-1');
      expect(log.map((seen) => seen.status)).toEqual([200, 200, 200]);
    } finally {
      await client.close();
    }
  });

  it('shows the wire position the gzip body as it arrives, the others the decoded body', async () => {
    const client = transport(everyPosition());
    try {
      const response = await client.request({ method: 'GET', path: '/gzip' });
      expect(await response.body.text()).toBe(large);
      const byObserver = Object.fromEntries(log.map((seen) => [seen.observer, seen]));
      expect(byObserver['at-wire']).toMatchObject({
        contentEncoding: 'gzip',
        firstBytes: [0x1f, 0x8b],
        bodyBytes: gzipSync(large).length,
      });
      for (const name of ['at-decorated', 'at-request']) {
        expect(byObserver[name]).toMatchObject({
          contentEncoding: undefined,
          firstBytes: [...Buffer.from(large.slice(0, 2))],
          bodyBytes: Buffer.byteLength(large),
        });
      }
    } finally {
      await client.close();
    }
  });

  it('shows a 401 and its replay at the wire position only', async () => {
    const client = transport(everyPosition());
    try {
      const response = await client.request({ method: 'POST', path: '/auth', body: 'payload' });
      expect(response.statusCode).toBe(200);
      await response.body.dump();
      const at = (name: string) =>
        log
          .filter((seen) => seen.observer === name)
          .map((seen) => [seen.headers.authorization, seen.status]);
      expect(at('at-wire')).toEqual([
        ['Bearer token-1', 401],
        ['Bearer token-2', 200],
      ]);
      expect(at('at-decorated')).toEqual([[undefined, 200]]);
      expect(at('at-request')).toEqual([[undefined, 200]]);
      expect(arrivals).toHaveLength(2);
    } finally {
      await client.close();
    }
  });

  it('without user interceptors, is the built-in stack alone (positions add nothing)', async () => {
    const full = transport({});
    const bare = createTransport(config({ auth: { kind: 'none' }, disableCompression: true }), {
      connectionPools: pools,
    });
    try {
      expect(describeTransportStack(full)).toBe(
        'impersonation → user-agent → auth → compression → pool',
      );
      expect(full.stack.every((entry) => entry.builtin)).toBe(true);
      expect(describeTransportStack(bare)).toBe('impersonation → user-agent → pool');
      const response = await bare.request({ method: 'GET', path: '/plain' });
      expect(response.statusCode).toBe(200);
      await response.body.dump();
    } finally {
      await full.close();
      await bare.close();
    }
  });

  it('refuses a duplicate name, or a built-in one, before it takes a pool', () => {
    const before = pools.size;
    const pass: TransportInterceptor['interceptor'] = (dispatch) => dispatch;
    expect(() =>
      transport({
        interceptors: [
          { name: 'logger', position: 'request', interceptor: pass },
          { name: 'logger', position: 'wire', interceptor: pass },
        ],
      }),
    ).toThrow(
      expect.objectContaining({
        name: 'TransportError',
        code: 'ERR_TRANSPORT_INTERCEPTOR_DUPLICATE',
        message: 'transport interceptor name "logger" is used twice',
      }),
    );
    for (const name of ['auth', 'pool', 'compression']) {
      expect(() =>
        transport(
          { interceptors: [{ name, position: 'decorated', interceptor: pass }] },
          { auth: { kind: 'none' } },
        ),
      ).toThrow(
        expect.objectContaining({
          code: 'ERR_TRANSPORT_INTERCEPTOR_DUPLICATE',
          message: `transport interceptor name "${name}" is the name of a built-in interceptor`,
        }),
      );
    }
    expect(pools.size).toBe(before);
  });

  it('says what to pass when an interceptor has the wrong shape (plain JavaScript)', () => {
    const bad = (interceptors: unknown) => () =>
      transport({ interceptors: interceptors as TransportInterceptor[] });
    const pass = (dispatch: Dispatcher.Dispatch) => dispatch;
    expect(bad({})).toThrow(
      'createTransport: options.interceptors must be an array of TransportInterceptors or undefined, not an object',
    );
    expect(bad([pass])).toThrow(
      'createTransport: options.interceptors[0] must be a TransportInterceptor ({ name, position, interceptor }), not a function',
    );
    expect(bad([{ name: 'x', position: 'outer', interceptor: pass }])).toThrow(
      "createTransport: options.interceptors[0].position must be one of 'request', 'decorated', 'wire', not a string",
    );
    expect(bad([{ name: 'x', position: 'wire', interceptor: pass, priority: 1 }])).toThrow(
      "options.interceptors[0].priority must be one of 'high', 'normal', 'low' or undefined",
    );
    expect(bad([{ name: '', position: 'wire', interceptor: pass }])).toThrow(
      'options.interceptors[0].name must be a non-empty string',
    );
    expect(bad([{ name: 'x', position: 'wire' }])).toThrow(
      expect.objectContaining({ code: 'ERR_TRANSPORT_INVALID_ARGUMENT' }),
    );
    expect(() => describeTransportStack(undefined as never)).toThrow(
      'describeTransportStack: stack must be a Transport or its stack (transport.stack), not undefined',
    );
  });
});
