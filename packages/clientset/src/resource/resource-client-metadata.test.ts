import { afterEach, describe, expect, it } from 'vitest';
import { createCoreV1Client } from '../generated/core/v1/index.js';
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

// client-go's metadata client sends these (k8s.io/client-go/metadata).
const ACCEPT =
  'application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
const LIST_ACCEPT =
  'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

// The Accept header on the wire, which the real server does not report; e2e/metadata.e2e.test.ts
// shows what the real server answers to it.
describe('asMetadata (recording fake server)', () => {
  it('asks for PartialObjectMetadata on get and watch, PartialObjectMetadataList on lists', async () => {
    server = await startRecordingServer((request, response) => {
      if (request.url.includes('watch=true')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end();
        return;
      }
      json(response, 200, { items: [] });
    });
    const configMaps = createCoreV1Client(server.client).configMaps('ns');
    const metadata = configMaps.asMetadata();
    expect(metadata.metadataOnly).toBe(true);
    expect(configMaps.metadataOnly).toBe(false);

    await metadata.get('a');
    await metadata.list({ limit: 5 });
    await metadata.listAll();
    for await (const page of metadata.inNamespace('other').listPages()) void page;
    const watch = await metadata.watch({ resourceVersion: '1' });
    for await (const event of watch) void event;
    await configMaps.get('a'); // the typed client itself is unchanged (protobuf, then JSON)

    expect(server.requests.map((request) => [request.url, request.headers.accept])).toEqual([
      ['/api/v1/namespaces/ns/configmaps/a', ACCEPT],
      ['/api/v1/namespaces/ns/configmaps?limit=5', LIST_ACCEPT],
      ['/api/v1/namespaces/ns/configmaps?limit=500', LIST_ACCEPT],
      ['/api/v1/namespaces/other/configmaps?limit=500', LIST_ACCEPT],
      ['/api/v1/namespaces/ns/configmaps?resourceVersion=1&watch=true', ACCEPT],
      [
        '/api/v1/namespaces/ns/configmaps/a',
        'application/vnd.kubernetes.protobuf,application/json',
      ],
    ]);
  });

  it('answers an empty list with items [], also when the JSON says null (as the server does)', async () => {
    server = await startRecordingServer((_request, response) =>
      json(response, 200, { kind: 'PartialObjectMetadataList', metadata: {}, items: null }),
    );
    const list = await createCoreV1Client(server.client).configMaps('ns').asMetadata().list();
    expect(list.items).toEqual([]);
  });

  it('works on a dynamic client too', async () => {
    server = await startRecordingServer((_request, response) => json(response, 200, { items: [] }));
    const widgets = new DynamicClient(server.client)
      .resource({ group: 'example.com', version: 'v1', resource: 'widgets' }, 'ns')
      .asMetadata();
    await widgets.list();
    expect(server.requests[0]).toMatchObject({
      url: '/apis/example.com/v1/namespaces/ns/widgets',
      headers: { accept: LIST_ACCEPT },
    });
  });
});
