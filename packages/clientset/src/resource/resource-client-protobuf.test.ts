import { RestClient } from '@k/rest';
import { afterEach, describe, expect, it } from 'vitest';
import { createCoreV1Client } from '../generated/core/v1/index.js';
import { createAppsV1Client } from '../generated/apps/v1/index.js';
import {
  json,
  startRecordingServer,
  type RecordingServer,
} from '../__fixtures__/recording-server.js';
import { DynamicClient } from '../dynamic/dynamic-client.js';

let server: RecordingServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

// client-go's generated clients prefer protobuf (k8s.io/client-go/gentype PrefersProtobuf).
const PROTOBUF_FIRST = 'application/vnd.kubernetes.protobuf,application/json';
// What a request with no Accept of its own sends.
const JSON_ONLY = 'application/json, */*';

const answer: Parameters<typeof startRecordingServer>[0] = (request, response) => {
  if (request.url.includes('watch=true')) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end();
    return;
  }
  json(response, 200, { kind: 'Thing', metadata: { name: 'a' }, items: [] });
};

// The Accept header on the wire, which the real server does not report;
// e2e/protobuf-reads.e2e.test.ts holds what the real server answers to it.
describe('typed reads of built-in kinds (recording fake server)', () => {
  it('ask for protobuf first on get, list and watch; subresources and writes ask for JSON', async () => {
    server = await startRecordingServer(answer);
    const deployments = createAppsV1Client(server.client).deployments('ns');
    await deployments.get('a');
    await deployments.list({ limit: 5 });
    await deployments.listAll();
    const watch = await deployments.watch({ resourceVersion: '1' });
    for await (const event of watch) void event;
    await deployments.getStatus('a');
    await deployments.getScale('a');
    await deployments.patch('a', 'merge', { metadata: { labels: { a: 'b' } } });
    await deployments.delete('a');
    expect(
      server.requests.map((request) => [request.method, request.url, request.headers.accept]),
    ).toEqual([
      ['GET', '/apis/apps/v1/namespaces/ns/deployments/a', PROTOBUF_FIRST],
      ['GET', '/apis/apps/v1/namespaces/ns/deployments?limit=5', PROTOBUF_FIRST],
      ['GET', '/apis/apps/v1/namespaces/ns/deployments?limit=500', PROTOBUF_FIRST],
      [
        'GET',
        '/apis/apps/v1/namespaces/ns/deployments?resourceVersion=1&watch=true',
        PROTOBUF_FIRST,
      ],
      ['GET', '/apis/apps/v1/namespaces/ns/deployments/a/status', JSON_ONLY],
      ['GET', '/apis/apps/v1/namespaces/ns/deployments/a/scale', JSON_ONLY],
      ['PATCH', '/apis/apps/v1/namespaces/ns/deployments/a', JSON_ONLY],
      ['DELETE', '/apis/apps/v1/namespaces/ns/deployments/a', JSON_ONLY],
    ]);
  });

  it('ask for JSON only for a resource of unknown kind and with protobuf: false', async () => {
    server = await startRecordingServer(answer);
    await new DynamicClient(server.client)
      .resource({ group: 'example.com', version: 'v1', resource: 'widgets' }, 'ns')
      .list();
    await new DynamicClient(server.client)
      .resource({ group: 'apps', version: 'v1', resource: 'deployments' }, 'ns')
      .list(); // named by resource only: its kind is not known, so neither is its encoding
    const jsonOnly = new RestClient(server.client.dispatcher, {
      ...server.client.options,
      protobuf: false,
    });
    await createCoreV1Client(jsonOnly).pods('ns').list();
    expect(server.requests.map((request) => request.headers.accept)).toEqual([
      JSON_ONLY,
      JSON_ONLY,
      JSON_ONLY,
    ]);
  });

  it('ask for protobuf on a dynamic client of a discovered built-in resource', async () => {
    server = await startRecordingServer(answer);
    await new DynamicClient(server.client)
      .resource(
        { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true },
        'ns',
      )
      .get('a');
    expect(server.requests[0]?.headers.accept).toBe(PROTOBUF_FIRST);
  });
});
