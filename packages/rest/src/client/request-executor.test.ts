import { getEventListeners } from 'node:events';
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
import { FakeClock } from '../testing/fake-clock.js';
import type { RetryEvent, ThrottleEvent } from './request-executor.js';
import { caught } from '@k/test-utils';
import { createServer } from 'node:net';

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
  it('holds back the API group on a 429 storm and retries each request once, after Retry-After', async () => {
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
    expect((get as RequestTimeoutError).code).toBe('ERR_REST_REQUEST_TIMEOUT');
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
    expect((gateway as ApiError).code).toBe('ERR_REST_API_UNEXPECTED_RESPONSE');
    expect((gateway as ApiError).statusCode).toBe(502);
    expect(isInternalError(gateway)).toBe(true);
    expect((gateway as Error).message).toBe(
      'an error on the server ("<html><body>Bad Gateway</body></html>") has prevented the request from succeeding (get pods)',
    );
    const missing = await caught(rest.client.get().resource('pods').name('missing').execute());
    expect(isNotFound(missing)).toBe(true);
  });
});

describe('bounded waits, from a fake API server (a real one will not send absurd Retry-After values)', () => {
  const status429 = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 429 };

  it('holds back only the API group that was answered 429, not the rest of the client', async () => {
    let metricsBusy = true;
    server = await startFakeServer((request, response) => {
      if (request.url?.startsWith('/apis/metrics.k8s.io/') && metricsBusy) {
        json(response, 429, status429, { 'retry-after': '2' });
        return;
      }
      json(response, 200, configMap);
    });
    rest = testClient(server.url);
    const client = rest.client;
    const metrics = client
      .get()
      .absPath('/apis/metrics.k8s.io/v1beta1/nodes')
      .execute()
      .then(() => performance.now());
    while (server.arrivals.length < 1) await delay(2);
    const pushedBackAt = performance.now();
    metricsBusy = false;
    // The core group and another named group go at once …
    await client.get().namespace('ns').resource('configmaps').name('c').execute();
    await client.withGroupVersion('apps/v1').get().resource('deployments').execute();
    expect(performance.now() - pushedBackAt).toBeLessThan(1500);
    // … while the group that was pushed back waits out its Retry-After, even for a new request.
    const sibling = client
      .get()
      .absPath('/apis/metrics.k8s.io/v1beta1/pods')
      .execute()
      .then(() => performance.now());
    const [metricsDone, siblingDone] = await Promise.all([metrics, sibling]);
    expect(metricsDone - pushedBackAt).toBeGreaterThanOrEqual(1900);
    expect(siblingDone - pushedBackAt).toBeGreaterThanOrEqual(1900);
  });

  it('does not wait for an absurd Retry-After: the 429 or 503 is returned at once', async () => {
    server = await startFakeServer((request, response) => {
      const code = request.url?.includes('busy') ? 503 : 429;
      json(response, code, { ...status429, code }, { 'retry-after': '3000000' });
    });
    rest = testClient(server.url);
    const throttled = await caught(rest.client.get().resource('pods').execute());
    expect(isTooManyRequests(throttled)).toBe(true);
    expect((throttled as ApiError).retryAfterSeconds).toBe(3_000_000);
    const busy = await caught(rest.client.get().resource('pods').name('busy').execute());
    expect(isServiceUnavailable(busy)).toBe(true);
    expect(server.arrivals).toHaveLength(2);
    // No pause was left behind: the next request goes at once.
    const started = performance.now();
    await caught(rest.client.get().resource('pods').execute());
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('fails at once with the server answer when Retry-After would outlast the request timeout', async () => {
    server = await startFakeServer((_request, response) => {
      json(response, 503, { ...status429, code: 503 }, { 'retry-after': '5' });
    });
    rest = testClient(server.url);
    const started = performance.now();
    const error = await caught(rest.client.get().resource('pods').timeout(2000).execute());
    expect(isServiceUnavailable(error)).toBe(true);
    expect(error).not.toBeInstanceOf(RequestTimeoutError);
    expect(performance.now() - started).toBeLessThan(1500);
    expect(server.arrivals).toHaveLength(1);
  });

  it('takes a request timeout longer than Node timers allow (1000h) as a long one', async () => {
    server = await startFakeServer((_request, response) => {
      setTimeout(() => json(response, 200, configMap), 50);
    });
    rest = testClient(server.url, { client: { timeoutMs: 1000 * 60 * 60 * 1000 } });
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      await expect(
        rest.client.get().namespace('ns').resource('configmaps').name('c').execute(),
      ).resolves.toMatchObject({ kind: 'ConfigMap' });
      expect(server.arrivals[0]?.url).toContain('timeout=1000h0m0s');
      expect(warnings).not.toContain('TimeoutOverflowWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('lets any number of requests share one AbortSignal without a listener-leak warning', async () => {
    server = await startFakeServer((_request, response) => {
      setTimeout(() => json(response, 200, configMap), 20);
    });
    rest = testClient(server.url, { throttle: new TokenBucket({ qps: 100, burst: 5 }) });
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning.name);
    process.on('warning', onWarning);
    const controller = new AbortController();
    try {
      const requests = Array.from({ length: 40 }, (_, index) =>
        rest!.client
          .get()
          .namespace('ns')
          .resource('configmaps')
          .name(`c${index}`)
          .signal(controller.signal)
          .execute(),
      );
      await delay(5);
      expect(getEventListeners(controller.signal, 'abort').length).toBeLessThanOrEqual(1);
      await Promise.all(requests);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });
});

/** closedPort is a loopback port nothing listens on: a request to it is refused at once. */
async function closedPort(): Promise<number> {
  const listener = createServer();
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const { port } = listener.address() as { port: number };
  await new Promise((resolve) => listener.close(resolve));
  return port;
}

// No server is needed: the token is taken before the connection is tried (and refused, which is
// never retried).
describe('onThrottle', () => {
  it('is told how long each attempt waited for its token, 0 when one was ready', async () => {
    const port = await closedPort();
    const clock = new FakeClock();
    const events: ThrottleEvent[] = [];
    rest = testClient(`http://127.0.0.1:${port}`, {
      throttle: new TokenBucket({ qps: 1, burst: 1, clock }),
      client: { clock, onThrottle: (event) => events.push(event) },
    });
    const get = (name: string) =>
      rest!.client.get().namespace('ns').resource('configmaps').name(name).execute();
    expect(await caught(get('a'))).toBeInstanceOf(ConnectionError);
    const second = caught(get('b'));
    await clock.advance(999);
    expect(events).toHaveLength(1); // still waiting
    await clock.advance(1);
    expect(await second).toBeInstanceOf(ConnectionError);
    expect(events).toEqual([
      { request: { method: 'GET', path: `${path}/a` }, host: `127.0.0.1:${port}`, waitedMs: 0 },
      { request: { method: 'GET', path: `${path}/b` }, host: `127.0.0.1:${port}`, waitedMs: 1000 },
    ]);
  });

  it("reports the wait a request's signal ended, and nothing for a watch's first attempt", async () => {
    const port = await closedPort();
    const clock = new FakeClock();
    const events: ThrottleEvent[] = [];
    rest = testClient(`http://127.0.0.1:${port}`, {
      throttle: new TokenBucket({ qps: 1, burst: 1, clock }),
      client: { clock, onThrottle: (event) => events.push(event) },
    });
    const configMaps = () => rest!.client.get().namespace('ns').resource('configmaps');
    // The watch's first attempt takes no token (client-go's rule): the bucket stays full.
    expect(await caught(configMaps().watch())).toBeInstanceOf(ConnectionError);
    expect(events).toEqual([]);
    expect(await caught(configMaps().execute())).toBeInstanceOf(ConnectionError);
    const controller = new AbortController();
    const given = caught(configMaps().signal(controller.signal).execute());
    await clock.advance(300);
    controller.abort(new Error('stopped'));
    expect(await given).toMatchObject({ message: 'stopped' });
    expect(events.map(({ waitedMs }) => waitedMs)).toEqual([0, 300]);
  });
});
