import type { ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConnectionError,
  isForbidden,
  isGone,
  RequestTimeoutError,
  WatchDecodeError,
} from '../errors.js';
import type { WatchEvent } from './watch.js';
import {
  json,
  startFakeServer,
  testClient,
  type FakeServer,
  type TestClient,
} from '../__fixtures__/fake-server.js';

interface Named {
  metadata: { name?: string; resourceVersion: string };
}

let server: FakeServer | undefined;
let rest: TestClient | undefined;

afterEach(async () => {
  await rest?.close();
  await server?.close();
  rest = undefined;
  server = undefined;
});

function frame(type: string, name: string, resourceVersion: string): string {
  return `${JSON.stringify({ type, object: { metadata: { name, resourceVersion } } })}\n`;
}

function startWatch(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
  response.flushHeaders();
}

async function collect<T>(
  events: AsyncIterable<WatchEvent<T>>,
): Promise<{ seen: WatchEvent<T>[]; error: unknown }> {
  const seen: WatchEvent<T>[] = [];
  try {
    for await (const event of events) seen.push(event);
  } catch (error) {
    return { seen, error };
  }
  return { seen, error: undefined };
}

function watchConfigMaps(
  rest: TestClient,
  options: { idleTimeoutMs?: number; signal?: AbortSignal } = {},
) {
  const builder = rest.client.get().namespace('ns').resource('configmaps');
  if (options.signal) builder.signal(options.signal);
  return builder.watch<Named>({
    allowWatchBookmarks: true,
    ...(options.idleTimeoutMs !== undefined ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
  });
}

// A local fake server streams exactly the frames, cuts and silences these cases need; watches
// against the real API server (bookmarks, 410) are in e2e/rest-client.e2e.test.ts.
describe('watch streams (local fake server)', () => {
  it('yields events and bookmarks as they arrive and ends when the server ends the watch', async () => {
    server = await startFakeServer(async (_request, response) => {
      startWatch(response);
      response.write(frame('ADDED', 'a', '1') + frame('MODIFIED', 'a', '2').slice(0, 20));
      await delay(20);
      response.write(frame('MODIFIED', 'a', '2').slice(20) + frame('BOOKMARK', '', '3'));
      response.end(frame('DELETED', 'a', '4'));
    });
    rest = testClient(server.url);
    const { seen, error } = await collect(await watchConfigMaps(rest));
    expect(error).toBeUndefined();
    expect(seen.map((event) => `${event.type}:${event.object.metadata.resourceVersion}`)).toEqual([
      'ADDED:1',
      'MODIFIED:2',
      'BOOKMARK:3',
      'DELETED:4',
    ]);
    expect(server.arrivals[0]?.url).toBe(
      '/api/v1/namespaces/ns/configmaps?allowWatchBookmarks=true&watch=true',
    );
  });

  it('throws an ERROR event with 410 as an isGone ApiError', async () => {
    server = await startFakeServer((_request, response) => {
      startWatch(response);
      response.write(frame('ADDED', 'a', '1'));
      response.end(
        `${JSON.stringify({
          type: 'ERROR',
          object: {
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            message: 'too old resource version: 1 (5)',
            reason: 'Expired',
            code: 410,
          },
        })}\n`,
      );
    });
    rest = testClient(server.url);
    const { seen, error } = await collect(await watchConfigMaps(rest));
    expect(seen).toHaveLength(1);
    expect(isGone(error)).toBe(true);
    expect((error as Error).message).toBe('too old resource version: 1 (5)');
  });

  it('fails with a ConnectionError when the stream is cut mid-event, after the whole events', async () => {
    server = await startFakeServer(async (_request, response) => {
      startWatch(response);
      response.write(
        frame('ADDED', 'a', '1') + frame('ADDED', 'b', '2') + frame('ADDED', 'c', '3').slice(0, 25),
      );
      await delay(20);
      response.socket?.destroy();
    });
    rest = testClient(server.url);
    const { seen, error } = await collect(await watchConfigMaps(rest));
    expect(seen.map((event) => event.object.metadata.name)).toEqual(['a', 'b']);
    expect(ConnectionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^watch \/api\/v1\/namespaces\/ns\/configmaps was cut: .*; 25 bytes of an incomplete event were dropped$/,
    );
  });

  it('fails with a ConnectionError when the stream ends cleanly in the middle of an event', async () => {
    server = await startFakeServer((_request, response) => {
      startWatch(response);
      response.end(frame('ADDED', 'a', '1') + '{"type":"ADDED","obj');
    });
    rest = testClient(server.url);
    const { seen, error } = await collect(await watchConfigMaps(rest));
    expect(seen).toHaveLength(1);
    expect((error as Error).message).toBe(
      'watch /api/v1/namespaces/ns/configmaps ended mid-event; 20 bytes of an incomplete event were dropped',
    );
  });

  it('rejects an unknown event type', async () => {
    server = await startFakeServer((_request, response) => {
      startWatch(response);
      response.end('{"type":"FOO","object":{}}\n');
    });
    rest = testClient(server.url);
    const { error } = await collect(await watchConfigMaps(rest));
    expect(WatchDecodeError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe('got invalid watch event type: FOO');
  });

  it('closes the connection when the loop breaks', async () => {
    let closed = false;
    server = await startFakeServer((_request, response) => {
      startWatch(response);
      response.write(frame('ADDED', 'a', '1'));
      response.on('close', () => (closed = true));
    });
    rest = testClient(server.url);
    for await (const event of await watchConfigMaps(rest)) {
      expect(event.type).toBe('ADDED');
      break;
    }
    for (let wait = 0; wait < 50 && !closed; wait += 1) await delay(10);
    expect(closed).toBe(true);
  });

  it('stops at close(), even with decoded events left in the chunk', async () => {
    server = await startFakeServer((_request, response) => {
      startWatch(response);
      response.write(
        frame('ADDED', 'a', '1') + frame('ADDED', 'b', '2') + frame('ADDED', 'c', '3'),
      );
    });
    rest = testClient(server.url);
    const watch = await watchConfigMaps(rest);
    const seen: string[] = [];
    for await (const event of watch) {
      seen.push(event.object.metadata.name ?? '');
      watch.close();
    }
    expect(seen).toEqual(['a']);
  });

  it('closes on abort and throws the signal reason', async () => {
    let closed = false;
    server = await startFakeServer((_request, response) => {
      startWatch(response);
      response.write(frame('ADDED', 'a', '1'));
      response.on('close', () => (closed = true));
    });
    rest = testClient(server.url);
    const controller = new AbortController();
    const reason = new Error('stop watching');
    const watch = await watchConfigMaps(rest, { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 30);
    const { seen, error } = await collect(watch);
    expect(seen).toHaveLength(1);
    expect(error).toBe(reason);
    for (let wait = 0; wait < 50 && !closed; wait += 1) await delay(10);
    expect(closed).toBe(true);
  });

  it('times out when nothing arrives for the idle timeout — not while events keep coming', async () => {
    server = await startFakeServer(async (request, response) => {
      startWatch(response);
      if (request.url?.includes('silent')) {
        response.write(frame('ADDED', 'a', '1'));
        return;
      }
      for (let index = 0; index < 8; index += 1) {
        response.write(frame('MODIFIED', 'a', String(index)));
        await delay(40);
      }
      response.end();
    });
    rest = testClient(server.url);
    const busy = await rest.client
      .get()
      .resource('configmaps')
      .watch<Named>({ idleTimeoutMs: 150 });
    const busyResult = await collect(busy);
    expect(busyResult.error).toBeUndefined();
    expect(busyResult.seen).toHaveLength(8);
    const silent = await rest.client
      .get()
      .resource('configmaps')
      .name('silent')
      .watch<Named>({ idleTimeoutMs: 150 });
    const silentResult = await collect(silent);
    expect(silentResult.seen).toHaveLength(1);
    expect(RequestTimeoutError.isInstance(silentResult.error)).toBe(true);
    expect((silentResult.error as RequestTimeoutError).code).toBe('ERR_REST_WATCH_IDLE_TIMEOUT');
  });

  it('does not count time spent in the loop body as idle', async () => {
    server = await startFakeServer((_request, response) => {
      startWatch(response);
      response.end(frame('ADDED', 'a', '1') + frame('ADDED', 'b', '2'));
    });
    rest = testClient(server.url);
    const seen: string[] = [];
    for await (const event of await watchConfigMaps(rest, { idleTimeoutMs: 100 })) {
      seen.push(event.object.metadata.name ?? '');
      await delay(250);
    }
    expect(seen).toEqual(['a', 'b']);
  });

  it('reports a refused watch (403) as an ApiError after one attempt (G1)', async () => {
    server = await startFakeServer((_request, response) => {
      json(response, 403, {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'Forbidden',
        code: 403,
        message: 'secrets is forbidden: User "alice" cannot watch resource "secrets"',
      });
    });
    rest = testClient(server.url);
    await expect(rest.client.get().resource('secrets').watch()).rejects.toSatisfy(isForbidden);
    expect(server.arrivals).toHaveLength(1);
  });

  it('retries establishing a watch whose connection was reset', async () => {
    server = await startFakeServer((request, response, _arrival, count) => {
      if (count === 1) {
        request.socket.destroy();
        return;
      }
      startWatch(response);
      response.end(frame('ADDED', 'a', '1'));
    });
    rest = testClient(server.url);
    const { seen } = await collect(await watchConfigMaps(rest));
    expect(seen).toHaveLength(1);
    expect(server.arrivals).toHaveLength(2);
  });
});
