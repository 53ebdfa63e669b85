import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiError,
  ConnectionError,
  isInternalError,
  isNotFound,
  isServiceUnavailable,
  isTooManyRequests,
  RequestTimeoutError,
  ResponseDecodeError,
} from '../errors.js';
import { TokenBucket } from '../throttle/token-bucket.js';
import {
  json,
  startFakeServer,
  testClient,
  type FakeServer,
  type TestClient,
} from '../__fixtures__/fake-server.js';
import type { RetryEvent } from './request-executor.js';
import { caught } from '../__fixtures__/caught.js';

const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } };
const path = '/api/v1/namespaces/ns/configmaps';

let server: FakeServer | undefined;
let rest: TestClient | undefined;

afterEach(async () => {
  await rest?.close();
  await server?.close();
  rest = undefined;
  server = undefined;
});

describe('faults from a fake API server (a real one cannot be made to produce them on demand)', () => {
  it('pauses the shared bucket on a 429 storm and retries each request once, after Retry-After', async () => {
    let stormOver = false;
    server = await startFakeServer((_request, response, arrival) => {
      if (!stormOver) {
        json(
          response,
          429,
          { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 429 },
          {
            'retry-after': '1',
            'x-kubernetes-pf-flowschema-uid': 'fs-1',
          },
        );
        return;
      }
      json(response, 200, { ...configMap, metadata: { name: arrival.url } });
    });
    const retries: RetryEvent[] = [];
    const throttle = new TokenBucket({ qps: 1000, burst: 1000 });
    rest = testClient(server.url, {
      throttle,
      client: { onRetry: (event) => retries.push(event) },
    });
    const client = rest.client;
    const first = Array.from({ length: 10 }, (_, index) =>
      client.get().namespace('ns').resource('configmaps').name(`c${index}`).execute(),
    );
    while (server.arrivals.length < 10) await delay(5);
    const stormEnd = performance.now();
    stormOver = true;
    // A request started during the pause waits for it instead of hitting the same wall.
    const late = client.get().namespace('ns').resource('configmaps').name('late').execute();
    await Promise.all([...first, late]);
    expect(server.arrivals).toHaveLength(21);
    const lateArrival = server.arrivals.find((arrival) => arrival.url.endsWith('/late'))!;
    expect(lateArrival.at - stormEnd).toBeGreaterThanOrEqual(900);
    for (const arrival of server.arrivals.slice(10)) {
      expect(arrival.at - stormEnd).toBeGreaterThanOrEqual(900);
    }
    expect(retries).toHaveLength(10);
    expect(retries[0]?.reason).toBe(
      'retries: 1, retry-after: 1s - retry-reason: due to server-side throttling, FlowSchema UID: "fs-1"',
    );
  });

  it('fails with isTooManyRequests once retries are used up', async () => {
    server = await startFakeServer((_request, response) => {
      json(
        response,
        429,
        {
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code: 429,
          reason: 'TooManyRequests',
          message: 'slow down',
        },
        { 'retry-after': '0' },
      );
    });
    rest = testClient(server.url, { retry: { maxRetries: 3 } });
    const error = await caught(rest.client.get().resource('pods').execute());
    expect(isTooManyRequests(error)).toBe(true);
    expect((error as ApiError).retryAfterSeconds).toBe(0);
    expect(server.countOf('GET', '/api/v1/pods')).toBe(4);
    const once = await caught(rest.client.get().resource('pods').maxRetries(0).execute());
    expect(isTooManyRequests(once)).toBe(true);
    expect(server.countOf('GET', '/api/v1/pods')).toBe(5);
  });

  it('retries a POST answered 503 with Retry-After, resending the whole body each time', async () => {
    server = await startFakeServer((_request, response, _arrival, count) => {
      if (count <= 2) {
        response.writeHead(503, { 'retry-after': '0', 'content-type': 'text/plain' });
        response.end('busy');
        return;
      }
      json(response, 201, configMap);
    });
    rest = testClient(server.url);
    const created = await rest.client
      .post()
      .namespace('ns')
      .resource('configmaps')
      .body(configMap)
      .execute();
    expect(created).toEqual(configMap);
    expect(server.countOf('POST', path)).toBe(3);
    expect(new Set(server.arrivals.map((arrival) => arrival.body))).toEqual(
      new Set([JSON.stringify(configMap)]),
    );
  });

  it('does not retry a 503 without Retry-After', async () => {
    server = await startFakeServer((_request, response) => {
      response.writeHead(503, { 'content-type': 'text/plain' });
      response.end('no capacity');
    });
    rest = testClient(server.url);
    const error = await caught(
      rest.client.get().namespace('ns').resource('configmaps').name('c').execute(),
    );
    expect(isServiceUnavailable(error)).toBe(true);
    expect((error as ApiError).message).toBe(
      'the server is currently unable to handle the request (get configmaps c)',
    );
    expect(server.arrivals).toHaveLength(1);
  });

  it('replays a GET whose connection is reset mid-body', async () => {
    server = await startFakeServer((_request, response, _arrival, count) => {
      if (count === 1) {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        response.write('{"kind":"ConfigMap","metadata":');
        setTimeout(() => response.socket?.destroy(), 10);
        return;
      }
      json(response, 200, configMap);
    });
    rest = testClient(server.url);
    expect(
      await rest.client.get().namespace('ns').resource('configmaps').name('c').execute(),
    ).toEqual(configMap);
    expect(server.countOf('GET', `${path}/c`)).toBe(2);
  });

  it('never replays a POST whose connection was reset after it reached the server', async () => {
    server = await startFakeServer((_request, response) => {
      response.writeHead(201, { 'content-type': 'application/json', 'content-length': '1000' });
      response.write('{"kind":"ConfigMap",');
      setTimeout(() => response.socket?.destroy(), 10);
    });
    rest = testClient(server.url);
    const error = await caught(
      rest.client.post().namespace('ns').resource('configmaps').body(configMap).execute(),
    );
    expect(ConnectionError.isInstance(error)).toBe(true);
    expect((error as ConnectionError).mayHaveReachedServer).toBe(true);
    expect((error as ConnectionError).attempts).toBe(1);
    await delay(50);
    expect(server.countOf('POST', path)).toBe(1);
  });

  it('never replays a PUT, PATCH or DELETE whose connection was reset before any answer', async () => {
    server = await startFakeServer((request) => {
      request.socket.destroy();
    });
    rest = testClient(server.url);
    const client = rest.client;
    const attempts = [
      client.put().namespace('ns').resource('configmaps').name('c').body(configMap).execute(),
      client
        .patch('merge')
        .namespace('ns')
        .resource('configmaps')
        .name('c')
        .body({ data: {} })
        .execute(),
      client.delete().namespace('ns').resource('configmaps').name('c').execute(),
    ];
    for (const attempt of attempts)
      expect(ConnectionError.isInstance(await caught(attempt))).toBe(true);
    await delay(50);
    expect(server.arrivals.map((arrival) => arrival.method).sort()).toEqual([
      'DELETE',
      'PATCH',
      'PUT',
    ]);
    // A GET in the same situation is replayed until the retries are used up.
    const get = await caught(
      client.get().namespace('ns').resource('configmaps').name('c').maxRetries(2).execute(),
    );
    expect((get as ConnectionError).attempts).toBe(3);
    expect(server.countOf('GET', `${path}/c`)).toBe(3);
  });

  it('times out when the headers never come, without replaying the POST', async () => {
    server = await startFakeServer(() => undefined);
    rest = testClient(server.url);
    const started = performance.now();
    const get = await caught(rest.client.get().resource('pods').timeout(200).execute());
    expect(RequestTimeoutError.isInstance(get)).toBe(true);
    expect((get as RequestTimeoutError).code).toBe('ERR_REQUEST_TIMEOUT');
    expect((get as Error).message).toBe('get /api/v1/pods did not complete within 200ms');
    expect(performance.now() - started).toBeLessThan(2000);
    const post = await caught(
      rest.client
        .post()
        .namespace('ns')
        .resource('configmaps')
        .body(configMap)
        .timeout(200)
        .execute(),
    );
    expect(RequestTimeoutError.isInstance(post)).toBe(true);
    await delay(100);
    expect(server.countOf('POST', path)).toBe(1);
    expect(server.arrivals.at(-1)?.url).toBe(`${path}?timeout=200ms`);
  });

  it('replays a GET after a socket headers timeout, but not a POST', async () => {
    server = await startFakeServer((_request, response, arrival, count) => {
      if (arrival.method === 'GET' && count >= 2) json(response, 200, configMap);
    });
    rest = testClient(server.url, { agent: { headersTimeout: 150 } });
    expect(
      await rest.client.get().namespace('ns').resource('configmaps').name('c').execute(),
    ).toEqual(configMap);
    expect(server.countOf('GET', `${path}/c`)).toBe(2);
    const post = await caught(
      rest.client.post().namespace('ns').resource('configmaps').body(configMap).execute(),
    );
    expect(ConnectionError.isInstance(post)).toBe(true);
    await delay(50);
    expect(server.countOf('POST', path)).toBe(1);
  });

  it('fails on truncated JSON with a typed error carrying the status code, without retrying', async () => {
    server = await startFakeServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"kind":"ConfigMap","metadata":{"na');
    });
    rest = testClient(server.url);
    const error = await caught(
      rest.client.get().namespace('ns').resource('configmaps').name('c').execute(),
    );
    expect(ResponseDecodeError.isInstance(error)).toBe(true);
    expect((error as ResponseDecodeError).statusCode).toBe(200);
    expect((error as ResponseDecodeError).contentType).toBe('application/json');
    expect(server.arrivals).toHaveLength(1);
  });

  it('turns an HTML page from a proxy into a typed ApiError with the status code', async () => {
    server = await startFakeServer((request, response) => {
      const notFound = request.url?.includes('missing') ?? false;
      response.writeHead(notFound ? 404 : 502, { 'content-type': 'text/html' });
      response.end('<html><body>Bad Gateway</body></html>\n');
    });
    rest = testClient(server.url);
    const gateway = await caught(rest.client.get().resource('pods').execute());
    expect(ApiError.isInstance(gateway)).toBe(true);
    expect((gateway as ApiError).code).toBe('ERR_API_UNEXPECTED_RESPONSE');
    expect((gateway as ApiError).statusCode).toBe(502);
    expect(isInternalError(gateway)).toBe(true);
    expect((gateway as Error).message).toBe(
      'an error on the server ("<html><body>Bad Gateway</body></html>") has prevented the request from succeeding (get pods)',
    );
    const missing = await caught(rest.client.get().resource('pods').name('missing').execute());
    expect(isNotFound(missing)).toBe(true);
  });
});
