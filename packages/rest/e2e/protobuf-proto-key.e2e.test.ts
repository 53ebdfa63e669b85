import { loadKubeconfig, resolveConfig } from '@k/config';
import { controlPlane, useTestNamespace } from '@k/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRestClient, isInvalid, type RestClient } from '../src/index.js';
import { ProtobufSchema, registerProtobufSchema } from '../src/protobuf.js';
import { caught } from '@k/test-utils';

// `__proto__` is a legal ConfigMap and Secret data key. An object decoded from protobuf must hold
// it as JSON.parse does, or a get-then-update deletes it on the server.

// The fields of v1 ConfigMap and v1 Secret as @k/clientset's generated table has them (that whole
// table is held to the real server's JSON by @k/clientset's e2e tests; @k/rest cannot import it).
const OBJECT_META = 17;
const MAP = 19;
const STRING = 0;
const BOOL = 1;
const BYTES = 8;
const POINTER_OMIT_EMPTY = 6;
const OMIT_EMPTY = 4;
registerProtobufSchema(
  new ProtobufSchema(() => ({
    kinds: { 'v1 ConfigMap': 0, 'v1 Secret': 1 },
    messages: [
      [
        ['metadata', 1, OBJECT_META, OMIT_EMPTY],
        ['immutable', 4, BOOL, POINTER_OMIT_EMPTY],
        ['data', 2, MAP, OMIT_EMPTY, [STRING]],
        ['binaryData', 3, MAP, OMIT_EMPTY, [BYTES]],
      ],
      [
        ['metadata', 1, OBJECT_META, OMIT_EMPTY],
        ['immutable', 5, BOOL, POINTER_OMIT_EMPTY],
        ['data', 2, MAP, OMIT_EMPTY, [BYTES]],
        ['stringData', 4, MAP, OMIT_EMPTY, [STRING]],
        ['type', 3, STRING, OMIT_EMPTY],
      ],
    ],
  })),
);

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const namespace = useTestNamespace({ prefix: 'rest-proto-key' });
let client: RestClient;

beforeAll(async () => {
  const loaded = await loadKubeconfig({ explicitPath: controlPlane().kubeconfigPath });
  client = createRestClient(resolveConfig(loaded, { context: 'admin' }), { throttle: 'off' });
});

afterAll(async () => {
  await client?.dispatcher.close();
});

type Data = Record<string, string>;

/** withProtoKey is `entries` with an own `__proto__` key first (a literal would set the prototype). */
function withProtoKey(value: string, entries: Data): Data {
  return JSON.parse(JSON.stringify({ ['__proto__']: value, ...entries })) as Data;
}

function read(resource: string, name: string, accept: string) {
  return client
    .get()
    .namespace(namespace.name)
    .resource(resource)
    .name(name)
    .accept(accept)
    .execute<Record<string, unknown> & { data: Data }>();
}

const base64 = (text: string): string => Buffer.from(text).toString('base64');

describe.each([
  {
    resource: 'configmaps',
    object: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      data: withProtoKey('kept', { plain: 'a' }),
      binaryData: { bin: base64('binary') }, // a key may be in data or binaryData, not both
    },
  },
  {
    resource: 'secrets',
    object: {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      data: withProtoKey(base64('kept'), { plain: base64('a') }),
    },
  },
])('a $object.kind with a `__proto__` data key, on the real API server', ({ resource, object }) => {
  it('reads the same by JSON and by protobuf, and keeps the key through a get-then-update', async () => {
    const name = 'proto-key';
    await client
      .post()
      .namespace(namespace.name)
      .resource(resource)
      .body({ ...object, metadata: { name } })
      .execute();
    const json = await read(resource, name, 'application/json');
    expect(Object.keys(json.data)).toEqual(['__proto__', 'plain']);
    const protobuf = await read(resource, name, PROTOBUF);
    expect(protobuf).toStrictEqual(json);
    expect(JSON.stringify(protobuf)).toBe(JSON.stringify(json));

    // The protobuf read, changed and written back: the server keeps what it was sent.
    protobuf.data.plain = object.kind === 'Secret' ? base64('b') : 'b';
    await client
      .put()
      .namespace(namespace.name)
      .resource(resource)
      .name(name)
      .body(protobuf)
      .execute();
    const updated = await read(resource, name, 'application/json');
    expect(Object.keys(updated.data)).toEqual(['__proto__', 'plain']);
    expect(updated.data['__proto__']).toBe(json.data['__proto__']);
  });
});

describe('`__proto__` as a label or annotation key, on the real API server', () => {
  it('is refused by the server (not a qualified name), so only unit tests decode one', async () => {
    for (const field of ['labels', 'annotations']) {
      const error = await caught(
        client
          .post()
          .namespace(namespace.name)
          .resource('configmaps')
          .body({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: `proto-${field}`, [field]: withProtoKey('x', {}) },
          })
          .execute(),
      );
      expect(isInvalid(error)).toBe(true);
    }
  });
});
