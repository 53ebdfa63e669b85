import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiError,
  isAlreadyExists,
  isNotFound,
  RequestBuildError,
  ResponseDecodeError,
} from '../errors.js';
import type { WarningHeader } from '../response/warning-handler.js';
import { TokenBucket } from '../throttle/token-bucket.js';
import {
  json,
  startFakeServer,
  testClient,
  type FakeServer,
  type TestClient,
} from '../__fixtures__/fake-server.js';
import { caught } from '@k/test-utils';

let server: FakeServer | undefined;
let rest: TestClient | undefined;

afterEach(async () => {
  await rest?.close();
  await server?.close();
  rest = undefined;
  server = undefined;
});

// These use a local fake server to see exactly what goes on the wire and to count connections;
// behaviour against the real API server is covered by e2e/rest-client.e2e.test.ts.
describe('RestClient on the wire (local fake server)', () => {
  it('sends method, path, query, headers and JSON body; decodes JSON into plain objects', async () => {
    server = await startFakeServer((_request, response, arrival) =>
      json(response, 200, { echoed: arrival.url }),
    );
    rest = testClient(`${server.url}/prefix/`);
    const result = await rest.client
      .apply({ fieldManager: 'tests' })
      .groupVersion('apps/v1')
      .namespace('ns')
      .resource('deployments')
      .name('d')
      .body({ apiVersion: 'apps/v1', kind: 'Deployment' })
      .execute<{ echoed: string }>();
    expect(result).toEqual({
      echoed: '/prefix/apis/apps/v1/namespaces/ns/deployments/d?fieldManager=tests&force=false',
    });
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    const arrival = server.arrivals[0]!;
    expect(arrival.method).toBe('PATCH');
    expect(arrival.headers['content-type']).toBe('application/apply-patch+yaml');
    expect(arrival.headers.accept).toBe('application/json, */*');
    expect(arrival.body).toBe('{"apiVersion":"apps/v1","kind":"Deployment"}');
  });

  it('returns the status code and headers, raw bytes or a stream', async () => {
    server = await startFakeServer((_request, response) =>
      json(response, 201, { a: 1 }, { 'x-extra': 'yes' }),
    );
    rest = testClient(server.url);
    const response = await rest.client
      .post()
      .resource('namespaces')
      .body({})
      .executeResponse<{ a: number }>();
    expect(response.statusCode).toBe(201);
    expect(response.headers['x-extra']).toBe('yes');
    expect(response.object).toEqual({ a: 1 });
    expect((await rest.client.get().absPath('/version').executeRaw()).toString()).toBe('{"a":1}');
    const stream = await rest.client.get().resource('pods').name('p').subresource('log').stream();
    const chunks: Buffer[] = [];
    for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
    expect(Buffer.concat(chunks).toString()).toBe('{"a":1}');
  });

  it('decodes a Status body into an ApiError whose code wins over the HTTP code (F4)', async () => {
    server = await startFakeServer((request, response) => {
      if (request.method === 'POST') {
        response.writeHead(409);
        response.end();
        return;
      }
      json(response, 400, {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        code: 404,
        reason: 'NotFound',
        message: 'configmaps "c" not found',
        details: { name: 'c', kind: 'configmaps' },
      });
    });
    rest = testClient(server.url);
    const error = await caught(
      rest.client.get().namespace('ns').resource('configmaps').name('c').execute(),
    );
    expect(isNotFound(error)).toBe(true);
    expect((error as ApiError).statusCode).toBe(404);
    expect((error as ApiError).httpStatusCode).toBe(400);
    expect((error as ApiError).message).toBe('configmaps "c" not found');
    expect((error as ApiError).code).toBe('ERR_REST_API_STATUS');
    expect((error as ApiError).request).toEqual({
      method: 'GET',
      path: '/api/v1/namespaces/ns/configmaps/c',
    });
    const created = await caught(
      rest.client.post().namespace('ns').resource('configmaps').body({}).execute(),
    );
    expect(isAlreadyExists(created)).toBe(true);
    expect((created as Error).message).toBe('the server reported a conflict (post configmaps)');
  });

  it('turns a 2xx Status saying Failure into an ApiError, and an empty body into a decode error', async () => {
    server = await startFakeServer((request, response) => {
      if (request.url?.includes('empty')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end();
        return;
      }
      json(response, 200, {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        code: 500,
        message: 'odd',
      });
    });
    rest = testClient(server.url);
    expect(ApiError.isInstance(await caught(rest.client.get().resource('pods').execute()))).toBe(
      true,
    );
    const empty = await caught(rest.client.get().resource('pods').name('empty').execute());
    expect(ResponseDecodeError.isInstance(empty)).toBe(true);
    expect((empty as Error).message).toBe(
      '0-length response with status code: 200 and content type: application/json',
    );
  });

  it('hands every Warning header to the handler', async () => {
    server = await startFakeServer((_request, response) => {
      response.setHeader('warning', [
        '299 - "v1beta1 is deprecated"',
        '299 - "unknown field \\"x\\""',
      ]);
      json(response, 200, {});
    });
    const warnings: WarningHeader[] = [];
    rest = testClient(server.url, {
      client: { warningHandler: { handleWarning: (warning) => warnings.push(warning) } },
    });
    await rest.client.get().resource('pods').execute();
    expect(warnings.map((warning) => warning.text)).toEqual([
      'v1beta1 is deprecated',
      'unknown field "x"',
    ]);
  });

  it('keeps one connection across errors and retries: every body is consumed or destroyed', async () => {
    server = await startFakeServer((request, response, _arrival, count) => {
      if (request.url?.includes('missing')) {
        json(response, 404, {
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code: 404,
          reason: 'NotFound',
          message: 'x'.repeat(10_000),
        });
      } else if (request.url?.includes('busy') && count % 2 === 1) {
        response.writeHead(503, { 'retry-after': '0', 'content-type': 'text/plain' });
        response.end('y'.repeat(20_000));
      } else {
        json(response, 200, { ok: true });
      }
    });
    rest = testClient(server.url, { agent: { connections: 1 } });
    for (let index = 0; index < 10; index += 1) {
      await caught(rest.client.get().resource('pods').name('missing').execute());
      await rest.client.get().resource('pods').name('busy').execute();
    }
    expect(server.arrivals).toHaveLength(30);
    expect(server.connections()).toBe(1);
  });

  it('rejects with the signal reason, while throttled or in flight', async () => {
    server = await startFakeServer(() => undefined);
    const throttle = new TokenBucket({ qps: 0.001, burst: 1 });
    rest = testClient(server.url, { throttle });
    const reason = new Error('caller cancelled');
    const inFlight = new AbortController();
    const sent = rest.client.get().resource('pods').signal(inFlight.signal).execute();
    const throttled = new AbortController();
    const waiting = rest.client.get().resource('pods').signal(throttled.signal).execute();
    // Aborted once the first is on the server (a fixed delay lost that race on a busy machine).
    while (server.arrivals.length < 1) await delay(5);
    inFlight.abort(reason);
    throttled.abort(reason);
    expect(await caught(sent)).toBe(reason);
    expect(await caught(waiting)).toBe(reason);
    expect(server.arrivals).toHaveLength(1);
  });

  it('reports builder mistakes at execute without sending anything', async () => {
    server = await startFakeServer((_request, response) => json(response, 200, {}));
    rest = testClient(server.url);
    const error = await caught(rest.client.get().namespace('a').namespace('b').execute());
    expect(RequestBuildError.isInstance(error)).toBe(true);
    expect(() => rest!.client.post().resource('pods').pager()).toThrow(
      'only a GET list request can be paged',
    );
    expect(server.arrivals).toHaveLength(0);
  });
});

describe('closeStreams (a fake server that streams forever, as a quiet watch does)', () => {
  it('ends every open watch and stream of the dispatcher so the transport can close', async () => {
    server = await startFakeServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n');
    });
    rest = testClient(server.url);
    const watch = await rest.client.get().resource('configmaps').watch();
    const sibling = rest.client.withGroupVersion('apps/v1');
    const stream = await sibling.get().resource('deployments').param('watch', 'true').stream();
    const errors: unknown[] = [];
    stream.on('error', (error) => errors.push(error));
    const streamClosed = new Promise((resolve) => stream.once('close', resolve));
    const seen: string[] = [];
    const loop = (async () => {
      for await (const event of watch) {
        seen.push((event.object as { metadata: { name: string } }).metadata.name);
      }
    })();
    while (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    // Either client ends both: they share the dispatcher.
    rest.client.closeStreams();
    await loop;
    await streamClosed;
    expect(seen).toEqual(['a']);
    expect(errors).toEqual([]);
    // Nothing is left open, so a graceful close completes.
    await rest.close();
    rest = undefined;
  });
});
