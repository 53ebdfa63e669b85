import { ApiError, isConflict, reasonForError } from '@k/rest';
import { afterEach, describe, expect, it } from 'vitest';
import { caught } from '@k/test-utils';
import { ApplyConflictError, ClientsetError } from '../errors.js';
import { createAppsV1Client, deploymentsResource } from '../generated/apps/v1/index.js';
import {
  configMapsResource,
  createCoreV1Client,
  namespacesResource,
} from '../generated/core/v1/index.js';
import {
  json,
  startRecordingServer,
  type RecordingServer,
} from '../__fixtures__/recording-server.js';
import { ResourceClient } from './resource-client.js';

let server: RecordingServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

function last() {
  const request = server?.requests.at(-1);
  if (!request) throw new Error('no request arrived');
  return request;
}

// A recording fake server shows the exact method, path, query and body on the wire, which the
// real API server does not report; the verbs against the real server are in e2e/.
describe('the HTTP mapping of the typed clients (client-go table H1–H6, recording fake server)', () => {
  it('H1: get is GET /apis/<group>/<version>/namespaces/<ns>/<plural>/<name>', async () => {
    server = await startRecordingServer();
    await createAppsV1Client(server.client).deployments('ns').get('d');
    expect(last()).toMatchObject({
      method: 'GET',
      url: '/apis/apps/v1/namespaces/ns/deployments/d',
    });
  });

  it('H2: list across namespaces omits the namespace; selectors are encoded', async () => {
    server = await startRecordingServer((_request, response) => json(response, 200, { items: [] }));
    await createCoreV1Client(server.client).pods('').list({ labelSelector: 'app=x', limit: 500 });
    expect(last().url).toBe('/api/v1/pods?labelSelector=app%3Dx&limit=500');
  });

  it('H2: a label selector map becomes selector text', async () => {
    server = await startRecordingServer((_request, response) => json(response, 200, { items: [] }));
    await createCoreV1Client(server.client)
      .configMaps('ns')
      .list({ labelSelector: { app: 'web', tier: 'db' }, fieldSelector: 'metadata.name=a' });
    expect(last().url).toBe(
      '/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Da&labelSelector=app%3Dweb%2Ctier%3Ddb',
    );
  });

  it('H3: timeoutSeconds is sent with the timeout parameter', async () => {
    server = await startRecordingServer((_request, response) => json(response, 200, { items: [] }));
    await createCoreV1Client(server.client).pods('ns').list({ timeoutSeconds: 10 });
    expect(last().url).toBe('/api/v1/namespaces/ns/pods?timeout=10s&timeoutSeconds=10');
  });

  it('H4: create is POST with dryRun=All and the field manager', async () => {
    server = await startRecordingServer();
    const object = { metadata: { name: 'c' }, data: { a: 'b' } };
    await createCoreV1Client(server.client)
      .configMaps('ns')
      .create(object, { dryRun: 'All', fieldManager: 'm', fieldValidation: 'Strict' });
    expect(last()).toMatchObject({
      method: 'POST',
      url: '/api/v1/namespaces/ns/configmaps?dryRun=All&fieldManager=m&fieldValidation=Strict',
      body: JSON.stringify(object),
    });
    expect(last().headers['content-type']).toBe('application/json');
  });

  it('H5: apply is PATCH apply-patch+yaml with the field manager and force=false always sent', async () => {
    server = await startRecordingServer();
    const deployments = createAppsV1Client(server.client).deployments('ns');
    await deployments.apply(
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 2 } },
      { fieldManager: 'm' },
    );
    expect(last()).toMatchObject({
      method: 'PATCH',
      url: '/apis/apps/v1/namespaces/ns/deployments/d?fieldManager=m&force=false',
    });
    expect(last().headers['content-type']).toBe('application/apply-patch+yaml');
    await deployments.apply(
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } },
      { fieldManager: 'm', force: true, dryRun: 'All' },
    );
    expect(last().url).toBe(
      '/apis/apps/v1/namespaces/ns/deployments/d?dryRun=All&fieldManager=m&force=true',
    );
  });

  it('H6: delete sends DeleteOptions in the body', async () => {
    server = await startRecordingServer();
    await createAppsV1Client(server.client)
      .deployments('ns')
      .delete('d', {
        propagationPolicy: 'Foreground',
        gracePeriodSeconds: 0,
        preconditions: { uid: 'u' },
      });
    expect(last()).toMatchObject({
      method: 'DELETE',
      url: '/apis/apps/v1/namespaces/ns/deployments/d',
    });
    expect(JSON.parse(last().body)).toEqual({
      gracePeriodSeconds: 0,
      preconditions: { uid: 'u' },
      propagationPolicy: 'Foreground',
    });
  });

  it('deleteCollection sends the selection as query and the delete options as body', async () => {
    server = await startRecordingServer();
    await createCoreV1Client(server.client)
      .configMaps('ns')
      .deleteCollection({ labelSelector: 'a=b', dryRun: 'All' });
    expect(last()).toMatchObject({
      method: 'DELETE',
      url: '/api/v1/namespaces/ns/configmaps?labelSelector=a%3Db',
    });
    expect(JSON.parse(last().body)).toEqual({ dryRun: ['All'] });
  });

  it('update is PUT to the object name; status and scale are subresources', async () => {
    server = await startRecordingServer();
    const deployments = createAppsV1Client(server.client).deployments('ns');
    const deployment = {
      metadata: { name: 'd', resourceVersion: '5' },
      spec: { selector: {}, template: {} },
    };
    await deployments.update(deployment, { fieldManager: 'm' });
    expect(last()).toMatchObject({
      method: 'PUT',
      url: '/apis/apps/v1/namespaces/ns/deployments/d?fieldManager=m',
    });
    await deployments.updateStatus(deployment);
    expect(last()).toMatchObject({
      method: 'PUT',
      url: '/apis/apps/v1/namespaces/ns/deployments/d/status',
    });
    await deployments.getScale('d');
    expect(last()).toMatchObject({
      method: 'GET',
      url: '/apis/apps/v1/namespaces/ns/deployments/d/scale',
    });
    await deployments.updateScale('d', { spec: { replicas: 3 } });
    expect(last()).toMatchObject({
      method: 'PUT',
      url: '/apis/apps/v1/namespaces/ns/deployments/d/scale',
    });
    expect(JSON.parse(last().body)).toEqual({ metadata: { name: 'd' }, spec: { replicas: 3 } });
    await deployments.patchScale('d', 'merge', { spec: { replicas: 4 } });
    expect(last().headers['content-type']).toBe('application/merge-patch+json');
    await deployments.applyScale(
      'd',
      {
        apiVersion: 'autoscaling/v1',
        kind: 'Scale',
        metadata: { name: 'd' },
        spec: { replicas: 1 },
      },
      { fieldManager: 'm' },
    );
    expect(last()).toMatchObject({
      method: 'PATCH',
      url: '/apis/apps/v1/namespaces/ns/deployments/d/scale?fieldManager=m&force=false',
    });
  });

  it('sends each patch type with its content type', async () => {
    server = await startRecordingServer();
    const configMaps = createCoreV1Client(server.client).configMaps('ns');
    await configMaps.patch('c', 'json', [{ op: 'replace', path: '/data/a', value: 'b' }]);
    expect(last().headers['content-type']).toBe('application/json-patch+json');
    await configMaps.patch('c', 'merge', { data: { a: null } }, { fieldManager: 'm' });
    expect(last()).toMatchObject({
      method: 'PATCH',
      url: '/api/v1/namespaces/ns/configmaps/c?fieldManager=m',
    });
    expect(last().headers['content-type']).toBe('application/merge-patch+json');
    await configMaps.patch('c', 'strategic-merge', { data: { a: 'b' } });
    expect(last().headers['content-type']).toBe('application/strategic-merge-patch+json');
    expect(JSON.parse(last().body)).toEqual({ data: { a: 'b' } });
  });

  it('watch adds watch=true and bookmarks when asked, and yields typed events', async () => {
    server = await startRecordingServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        `${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } })}\n` +
          `${JSON.stringify({ type: 'DELETED', object: { metadata: { name: 'a' } } })}\n`,
      );
    });
    const watch = await createCoreV1Client(server.client)
      .configMaps('ns')
      .watch({ resourceVersion: '7', allowWatchBookmarks: true, timeoutSeconds: 30 });
    const events: string[] = [];
    for await (const event of watch) events.push(`${event.type} ${event.object.metadata?.name}`);
    expect(events).toEqual(['ADDED a', 'DELETED a']);
    expect(last().url).toBe(
      '/api/v1/namespaces/ns/configmaps?allowWatchBookmarks=true&resourceVersion=7&timeout=30s&timeoutSeconds=30&watch=true',
    );
  });

  it('watch decodes objects without managedFields when asked', async () => {
    const metadata = { name: 'a', managedFields: [{ manager: 'm', fieldsV1: { 'f:data': {} } }] };
    server = await startRecordingServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(`${JSON.stringify({ type: 'ADDED', object: { metadata } })}\n`);
    });
    const configMaps = createCoreV1Client(server.client).configMaps('ns');
    const objects = async (options: { omitManagedFields?: boolean }) => {
      const seen: unknown[] = [];
      for await (const event of await configMaps.watch(options)) seen.push(event.object);
      return seen;
    };
    expect(await objects({ omitManagedFields: true })).toEqual([{ metadata: { name: 'a' } }]);
    expect(await objects({})).toEqual([{ metadata }]);
    expect(last().url).toBe('/api/v1/namespaces/ns/configmaps?watch=true');
  });

  it('listAll follows continue tokens with the page size as limit', async () => {
    server = await startRecordingServer((request, response) => {
      const page = new URL(request.url, 'http://x').searchParams.get('continue');
      json(response, 200, {
        metadata: { resourceVersion: '9', ...(page ? {} : { continue: 'next' }) },
        items: [{ metadata: { name: page ? 'b' : 'a' } }],
      });
    });
    const list = await createCoreV1Client(server.client)
      .configMaps('ns')
      .listAll({ pageSize: 1, labelSelector: 'x=y' });
    expect(list.items.map((item) => item.metadata?.name)).toEqual(['a', 'b']);
    expect(server.requests.map((request) => request.url)).toEqual([
      '/api/v1/namespaces/ns/configmaps?labelSelector=x%3Dy&limit=1',
      '/api/v1/namespaces/ns/configmaps?continue=next&labelSelector=x%3Dy&limit=1',
    ]);
  });

  it('logs streams text from the log subresource with its options', async () => {
    server = await startRecordingServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('line 1\nline 2\n');
    });
    const stream = await createCoreV1Client(server.client)
      .pods('ns')
      .logs('p', { container: 'c', tailLines: 2, timestamps: true });
    let text = '';
    for await (const chunk of stream) text += String(chunk);
    expect(text).toBe('line 1\nline 2\n');
    expect(last().url).toBe(
      '/api/v1/namespaces/ns/pods/p/log?container=c&tailLines=2&timestamps=true',
    );
    // What kubectl logs sends (seen with kubectl logs -v=9); the kubelet answers text either way.
    expect(last().headers.accept).toBe('application/json, */*');
  });

  it('cluster-scoped resources have no namespace segment', async () => {
    server = await startRecordingServer();
    await createCoreV1Client(server.client).namespaces().get('n');
    expect(last().url).toBe('/api/v1/namespaces/n');
  });
});

describe('ResourceClient checks (recording fake server)', () => {
  it('refuses a verb the descriptor does not list, before sending', async () => {
    server = await startRecordingServer();
    const namespaces = new ResourceClient(server.client, {
      group: '',
      version: 'v1',
      kind: 'Namespace',
      plural: 'namespaces',
      namespaced: false,
      verbs: ['get'],
      subresources: { status: ['get'] },
    });
    const error = await caught(() => namespaces.deleteCollection());
    expect(ClientsetError.isInstance(error) && error.code).toBe('ERR_CLIENTSET_VERB_NOT_SUPPORTED');
    expect((error as Error).message).toBe('namespaces does not support deletecollection');
    await expect(
      caught(() => namespaces.updateStatus({ metadata: { name: 'n' } })),
    ).resolves.toMatchObject({
      message: 'namespaces/status does not support update',
    });
    expect(server.requests).toHaveLength(0);
  });

  it('needs metadata.name to update and apply, and no managed fields to apply', async () => {
    server = await startRecordingServer();
    const configMaps = createCoreV1Client(server.client).configMaps('ns');
    await expect(caught(() => configMaps.update({ data: {} }))).resolves.toMatchObject({
      code: 'ERR_CLIENTSET_INVALID_OBJECT',
    });
    await expect(
      caught(() =>
        configMaps.apply(
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'c', managedFields: [{ manager: 'x' }] },
          },
          { fieldManager: 'm' },
        ),
      ),
    ).resolves.toMatchObject({
      message: expect.stringMatching(/^cannot apply an object with managed fields/) as unknown,
    });
    expect(server.requests).toHaveLength(0);
  });

  it('turns an apply conflict into an ApplyConflictError naming fields and managers', async () => {
    server = await startRecordingServer((_request, response) =>
      json(response, 409, {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'Conflict',
        code: 409,
        message: 'Apply failed with 1 conflict: conflict with "other": .data.a',
        details: {
          causes: [
            { reason: 'FieldManagerConflict', message: 'conflict with "other"', field: '.data.a' },
          ],
        },
      }),
    );
    const configMaps = createCoreV1Client(server.client).configMaps('ns');
    const error = await caught(() =>
      configMaps.apply(
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } },
        { fieldManager: 'm' },
      ),
    );
    expect(ApplyConflictError.isInstance(error)).toBe(true);
    expect(ApiError.isInstance(error)).toBe(true);
    expect(isConflict(error)).toBe(true);
    expect(reasonForError(error)).toBe('Conflict');
    expect((error as ApplyConflictError).cause).toBeInstanceOf(ApiError);
    expect((error as ApplyConflictError).conflicts).toEqual([
      { field: '.data.a', manager: 'other', message: 'conflict with "other"' },
    ]);
  });

  it('a dynamic descriptor without verbs allows every verb', async () => {
    server = await startRecordingServer();
    const client = new ResourceClient(
      server.client,
      { ...deploymentsResource, verbs: undefined, subresources: undefined },
      'ns',
    );
    await client.getScale('d');
    expect(last().url).toBe('/apis/apps/v1/namespaces/ns/deployments/d/scale');
    expect(client.inNamespace('other').namespace).toBe('other');
  });

  it('refuses a namespace for a cluster-scoped resource, whose namespaced URLs all answer 404', async () => {
    server = await startRecordingServer();
    const namespaces = new ResourceClient(server.client, namespacesResource, undefined);
    const refused = await caught(() => namespaces.inNamespace('a'));
    expect(ClientsetError.isInstance(refused) && refused.code).toBe(
      'ERR_CLIENTSET_INVALID_ARGUMENT',
    );
    expect(namespaces.inNamespace('').namespace).toBe('');
  });
});

/** PlainClient is a resource client as plain JavaScript sees it: any method, any arguments. */
type PlainClient = Record<string, (...args: unknown[]) => unknown>;

const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } as const;

// What a plain-JavaScript caller can pass that the types forbid; the recording fake server shows
// that nothing is sent. Each call must fail with a typed error saying what to pass.
describe('ResourceClient arguments from plain JavaScript (recording fake server)', () => {
  const configMapCalls: [string, (client: PlainClient) => unknown, string, RegExp][] = [
    [
      'apply without options',
      (c) => c.apply!(CONFIG_MAP),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /^configmaps apply: options must be an object with fieldManager, got undefined$/,
    ],
    [
      'apply without fieldManager',
      (c) => c.apply!(CONFIG_MAP, {}),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /^configmaps apply: options.fieldManager must be a non-empty string, got undefined$/,
    ],
    [
      'apply with a numeric fieldManager',
      (c) => c.apply!(CONFIG_MAP, { fieldManager: 5 }),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /options.fieldManager must be a non-empty string, got a number$/,
    ],
    [
      'apply with force as text',
      (c) => c.apply!(CONFIG_MAP, { fieldManager: 'm', force: 'yes' }),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /options.force must be true or false, got a string$/,
    ],
    [
      'apply of a string',
      (c) => c.apply!('kind: ConfigMap', { fieldManager: 'm' }),
      'ERR_CLIENTSET_INVALID_OBJECT',
      /^configmaps apply: the configuration must be an object, got a string$/,
    ],
    [
      'apply of nothing',
      (c) => c.apply!(undefined, { fieldManager: 'm' }),
      'ERR_CLIENTSET_INVALID_OBJECT',
      /the configuration must be an object, got undefined$/,
    ],
    [
      'get without a name',
      (c) => c.get!(),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /^configmaps get: name must be a non-empty string, got undefined$/,
    ],
    [
      'get with a numeric name',
      (c) => c.get!(5),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /name must be a non-empty string, got a number$/,
    ],
    [
      'get with options as text',
      (c) => c.get!('c', '0'),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /^configmaps get: options must be an object, got a string$/,
    ],
    [
      'get with null options',
      (c) => c.get!('c', null),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /options must be an object, got null$/,
    ],
    [
      'list with a selector instead of options',
      (c) => c.list!('app=web'),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /^configmaps list: options must be an object, got a string$/,
    ],
    [
      'list with a limit as text',
      (c) => c.list!({ limit: '10' }),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /options.limit must be an integer of 0 or more, got a string$/,
    ],
    [
      'list with a numeric label selector',
      (c) => c.list!({ labelSelector: 5 }),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /options.labelSelector must be a string or an object of string values, got a number$/,
    ],
    [
      'list with a label selector map of numbers',
      (c) => c.list!({ labelSelector: { app: 5 } }),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /options.labelSelector must be/,
    ],
    [
      'list with a signal that is not one',
      (c) => c.list!({ signal: {} }),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /options.signal must be an AbortSignal, got an object$/,
    ],
    [
      'listAll with a page size as text',
      (c) => c.listAll!({ pageSize: '5' }),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /^configmaps list: options.pageSize/,
    ],
    [
      'watch with a negative timeout',
      (c) => c.watch!({ timeoutSeconds: -1 }),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /^configmaps watch: options.timeoutSeconds must be an integer of 0 or more, got a number$/,
    ],
    [
      'watch with omitManagedFields as text',
      (c) => c.watch!({ omitManagedFields: 'yes' }),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /^configmaps watch: options.omitManagedFields must be/,
    ],
    [
      'create of nothing',
      (c) => c.create!(),
      'ERR_CLIENTSET_INVALID_OBJECT',
      /^configmaps create: the object must be an object, got undefined$/,
    ],
    [
      'create of a string',
      (c) => c.create!('{}'),
      'ERR_CLIENTSET_INVALID_OBJECT',
      /the object must be an object, got a string$/,
    ],
    [
      'create of a list',
      (c) => c.create!([CONFIG_MAP]),
      'ERR_CLIENTSET_INVALID_OBJECT',
      /the object must be an object, got an array$/,
    ],
    [
      'create with dryRun false',
      (c) => c.create!(CONFIG_MAP, { dryRun: false }),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /options.dryRun must be 'All' or true, got a boolean$/,
    ],
    [
      'create with a lower-case fieldValidation',
      (c) => c.create!(CONFIG_MAP, { fieldValidation: 'strict' }),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /options.fieldValidation must be 'Ignore', 'Warn' or 'Strict', got a string$/,
    ],
    [
      'update of nothing',
      (c) => c.update!(),
      'ERR_CLIENTSET_INVALID_OBJECT',
      /^configmaps update: the object must be an object, got undefined$/,
    ],
    [
      'patch without a type',
      (c) => c.patch!('c'),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /^configmaps patch: type must be 'json', 'merge' or 'strategic-merge', got undefined$/,
    ],
    [
      'patch of type apply',
      (c) => c.patch!('c', 'apply', {}),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /type must be 'json', 'merge' or 'strategic-merge', got a string$/,
    ],
    [
      'patch with the body as text',
      (c) => c.patch!('c', 'merge', '{"data":{}}'),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /^configmaps patch: body must be an object \(a merge patch\), got a string$/,
    ],
    [
      'a json patch that is not a list',
      (c) => c.patch!('c', 'json', { op: 'remove', path: '/data' }),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /body must be an array of JSON patch operations, got an object$/,
    ],
    [
      'patch without a name',
      (c) => c.patch!(undefined, 'merge', {}),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /^configmaps patch: name must be a non-empty string, got undefined$/,
    ],
    [
      'delete without a name',
      (c) => c.delete!(),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /^configmaps delete: name must be a non-empty string, got undefined$/,
    ],
    [
      'delete with a lower-case propagation policy',
      (c) => c.delete!('c', { propagationPolicy: 'background' }),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /options.propagationPolicy must be 'Orphan', 'Background' or 'Foreground', got a string$/,
    ],
    [
      'delete with a grace period as text',
      (c) => c.delete!('c', { gracePeriodSeconds: '0' }),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /options.gracePeriodSeconds must be an integer of 0 or more, got a string$/,
    ],
    [
      'deleteCollection with a selector instead of options',
      (c) => c.deleteCollection!('app=web'),
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      /^configmaps deletecollection: options must be an object, got a string$/,
    ],
  ];

  it.each(configMapCalls)('%s: a typed error, nothing sent', async (_name, call, code, message) => {
    server = await startRecordingServer();
    const client = createCoreV1Client(server.client).configMaps('ns') as unknown as PlainClient;
    const error = await caught(() => call(client));
    expect(ClientsetError.isInstance(error) && error.code).toBe(code);
    expect((error as Error).message).toMatch(message);
    expect((error as ClientsetError).resource).toBe('configmaps');
    expect(server.requests).toHaveLength(0);
  });

  const deploymentCalls: [string, (client: PlainClient) => unknown, RegExp][] = [
    [
      'getStatus without a name',
      (c) => c.getStatus!(),
      /^deployments.apps get status: name must be a non-empty string, got undefined$/,
    ],
    [
      'updateStatus of a string',
      (c) => c.updateStatus!('d'),
      /^deployments.apps update status: the object must be an object, got a string$/,
    ],
    [
      'patchStatus with a null body',
      (c) => c.patchStatus!('d', 'merge', null),
      /^deployments.apps patch status: body must be an object \(a merge patch\), got null$/,
    ],
    [
      'applyStatus without options',
      (c) => c.applyStatus!({ ...CONFIG_MAP, kind: 'Deployment' }),
      /^deployments.apps apply status: options must be an object with fieldManager, got undefined$/,
    ],
    [
      'getScale with a numeric name',
      (c) => c.getScale!(1),
      /^deployments.apps get scale: name must be a non-empty string, got a number$/,
    ],
    [
      'updateScale without the scale',
      (c) => c.updateScale!('d'),
      /^deployments.apps update scale: the scale must be an object, got undefined$/,
    ],
    [
      'patchScale with an unknown type',
      (c) => c.patchScale!('d', 'strategic', {}),
      /^deployments.apps patch scale: type must be/,
    ],
    [
      'applyScale without options',
      (c) =>
        c.applyScale!('d', {
          apiVersion: 'autoscaling/v1',
          kind: 'Scale',
          metadata: { name: 'd' },
        }),
      /^deployments.apps apply scale: options must be an object with fieldManager, got undefined$/,
    ],
  ];

  it.each(deploymentCalls)('%s: a typed error, nothing sent', async (_name, call, message) => {
    server = await startRecordingServer();
    const client = createAppsV1Client(server.client).deployments('ns') as unknown as PlainClient;
    const error = await caught(() => call(client));
    expect(ClientsetError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(message);
    expect(server.requests).toHaveLength(0);
  });

  it('a namespace that is not a string is refused where the client is made', async () => {
    server = await startRecordingServer();
    const core = createCoreV1Client(server.client) as unknown as Record<
      string,
      (namespace: unknown) => PlainClient
    >;
    const error = await caught(() => core.configMaps!(5));
    expect(ClientsetError.isInstance(error) && error.code).toBe('ERR_CLIENTSET_INVALID_ARGUMENT');
    expect((error as Error).message).toBe('configmaps: namespace must be a string, got a number');
    const configMaps = new ResourceClient(server.client, configMapsResource, 'ns');
    const inNamespace = await caught(() => configMaps.inNamespace(undefined as never));
    expect((inNamespace as Error).message).toBe(
      'configmaps inNamespace: namespace must be a string, got undefined',
    );
  });

  it('listPages, which returns an iterable, throws its typed error at once', async () => {
    server = await startRecordingServer();
    const client = createCoreV1Client(server.client).configMaps('ns') as unknown as PlainClient;
    expect(() => client.listPages!('app=web')).toThrow(
      /^configmaps list: options must be an object, got a string$/,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('every other call still goes out: valid options pass the checks', async () => {
    server = await startRecordingServer((_request, response) => json(response, 200, { items: [] }));
    const client = createCoreV1Client(server.client).configMaps('ns');
    const controller = new AbortController();
    await client.list({
      labelSelector: { app: 'web' },
      limit: 0,
      timeoutSeconds: 5,
      signal: controller.signal,
      resourceVersionMatch: 'NotOlderThan',
      resourceVersion: '0',
    });
    await client.apply(CONFIG_MAP, {
      fieldManager: 'm',
      force: true,
      dryRun: 'All',
      fieldValidation: 'Strict',
    });
    await client.create(CONFIG_MAP, {
      dryRun: true,
      fieldManager: 'm',
      timeoutMs: 1000,
      maxRetries: 0,
    });
    await client.patch('c', 'json', [{ op: 'remove', path: '/data' }]);
    await client.delete('c', {
      propagationPolicy: 'Background',
      gracePeriodSeconds: 0,
      preconditions: { uid: 'u' },
    });
    expect(server.requests).toHaveLength(5);
  });
});
