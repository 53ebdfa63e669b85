import { caught } from '@k/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientsetError } from '../errors.js';
import { configMapsResource, createCoreV1Client } from '../generated/core/v1/index.js';
import { startRecordingServer, type RecordingServer } from '../__fixtures__/recording-server.js';
import { ResourceClient } from './resource-client.js';

let server: RecordingServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Plain is any value as plain JavaScript passes it: the types do not apply. */
type Plain = never;

// The recording fake server shows that nothing is sent for a refused argument, and holds a
// followed log open forever, which kwok's kubelet API does not do on demand.
describe('logs and logLines arguments (recording fake server)', () => {
  it('rejects, never throws, and sends nothing for what logs() cannot send', async () => {
    server = await startRecordingServer();
    const pods = createCoreV1Client(server.client).pods('ns');
    const cases: [() => Promise<unknown>, RegExp][] = [
      [() => pods.logs(''), /^pods logs: name must be a non-empty string, got an empty string$/],
      [
        () => pods.logs('p', { follow: 'false' as Plain }),
        /^pods logs: options.follow must be true or false, got a string$/,
      ],
      [
        () => pods.logs('p', { tailLines: -1 }),
        /^pods logs: options.tailLines must be an integer of 0 or more, got a number$/,
      ],
      [
        () => pods.logs('p', { stream: 'stdout' as Plain }),
        /^pods logs: options.stream must be 'All', 'Stdout' or 'Stderr', got a string$/,
      ],
      [
        () => new ResourceClient(server!.client, configMapsResource, 'ns').logs('c'),
        /^configmaps\/log does not support get$/,
      ],
    ];
    for (const [call, message] of cases) {
      const pending = call();
      expect(pending).toBeInstanceOf(Promise);
      const error = await caught(pending);
      expect(error).toBeInstanceOf(ClientsetError);
      expect((error as Error).message).toMatch(message);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('logLines refuses bad options at the call, before anything is sent', async () => {
    server = await startRecordingServer();
    const pods = createCoreV1Client(server.client).pods('ns');
    expect(() => pods.logLines('p', { allContainers: 'yes' as Plain })).toThrow(
      /^pods log lines: options.allContainers must be true or false, got a string$/,
    );
    expect(() => pods.logLines('p', { reconnect: 3 as Plain })).toThrow(
      /^pods log lines: options.reconnect must be true or false or an object, got a number$/,
    );
    expect(() => pods.logLines('p', { maxLineBytes: 0 })).toThrow(
      /^pods log lines: options.maxLineBytes must be an integer of 1 or more, got a number$/,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe('logLines and the client closing (recording fake server)', () => {
  it('ends a followed log when the client closes, instead of reopening it', async () => {
    server = await startRecordingServer((request, response) => {
      if (!request.url.includes('/log')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ spec: { containers: [{ name: 'main' }] } }));
        return;
      }
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('2026-01-01T00:00:01Z first\n');
    });
    const lines = createCoreV1Client(server.client)
      .pods('ns')
      .logLines('p', { follow: true, reconnect: { delayMs: 10 } })
      [Symbol.asyncIterator]();
    expect((await lines.next()).value).toMatchObject({ container: 'main', text: 'first' });
    const next = lines.next();
    await server.client.close();
    expect(await next).toEqual({ done: true, value: undefined });
    expect(server.requests.map((request) => request.url)).toEqual([
      '/api/v1/namespaces/ns/pods/p',
      '/api/v1/namespaces/ns/pods/p/log?container=main&follow=true&timestamps=true',
    ]);
  });
});
