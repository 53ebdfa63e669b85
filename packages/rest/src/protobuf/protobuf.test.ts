import { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, ResponseDecodeError, WatchDecodeError } from '../errors.js';
import { startFakeServer, testClient, type FakeServer } from '../__fixtures__/fake-server.js';
import { WatchStream } from '../watch/watch-stream.js';
import {
  EXPIRED_WATCH_FRAME,
  POD_METADATA_JSON,
  POD_METADATA_PROTOBUF,
  WATCH_FRAMES,
} from './__fixtures__/recorded-answers.js';
import { decodeProtobufObject, isProtobufMediaType } from './protobuf-object.js';
import { ProtobufWatchDecoder } from './protobuf-watch-decoder.js';
import { ProtoFormatError, ProtoReader } from './proto-reader.js';
import {
  messageField,
  protobufObject,
  stringField,
  varint,
  varintField,
} from './__fixtures__/proto-writer.js';

const notFoundStatus = (): Buffer =>
  protobufObject('v1', 'Status', [
    ...messageField(1, []),
    ...stringField(2, 'Failure'),
    ...stringField(3, 'configmaps "a" not found'),
    ...stringField(4, 'NotFound'),
    ...messageField(5, [...stringField(1, 'a'), ...stringField(3, 'configmaps')]),
    ...varintField(6, 404),
  ]);

describe('decodeProtobufObject', () => {
  it('decodes a real PartialObjectMetadata to what its JSON answer parses to, key order too', () => {
    const decoded = decodeProtobufObject(POD_METADATA_PROTOBUF);
    expect(decoded).toStrictEqual(JSON.parse(POD_METADATA_JSON));
    expect(JSON.stringify(decoded)).toBe(POD_METADATA_JSON.trim());
  });

  it('skips managedFields when asked, and nothing else', () => {
    const full = JSON.parse(POD_METADATA_JSON) as { metadata: Record<string, unknown> };
    expect(full.metadata.managedFields).toBeDefined();
    delete full.metadata.managedFields;
    expect(decodeProtobufObject(POD_METADATA_PROTOBUF, { omitManagedFields: true })).toStrictEqual(
      full,
    );
  });

  it('keeps a `__proto__` label or annotation key, as JSON.parse does', () => {
    // A legal key: assigned, it would set the prototype (or vanish), and an update delete it.
    const entry = (key: string, value: string) => [
      ...stringField(1, key),
      ...stringField(2, value),
    ];
    const meta = [
      ...stringField(1, 'p'),
      ...messageField(11, entry('__proto__', 'label')),
      ...messageField(11, entry('app', 'web')),
      ...messageField(12, entry('__proto__', '{"polluted":true}')),
    ];
    for (const [apiVersion, kind] of [
      ['meta.k8s.io/v1', 'PartialObjectMetadata'],
      ['v1', 'Pod'], // a kind no schema holds: only its bookmark decoder reads it
    ] as const) {
      const bytes = protobufObject(apiVersion, kind, messageField(1, meta));
      if (kind === 'PartialObjectMetadata') {
        const decoded = decodeProtobufObject(bytes);
        const json = JSON.parse(
          '{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"p",' +
            '"labels":{"__proto__":"label","app":"web"},"annotations":{"__proto__":"{\\"polluted\\":true}"}}}',
        ) as unknown;
        expect(decoded).toStrictEqual(json);
        expect(JSON.stringify(decoded)).toBe(JSON.stringify(json));
        const { labels } = (decoded as { metadata: { labels: object } }).metadata;
        expect(Object.getPrototypeOf(labels)).toBe(Object.prototype);
        expect(Object.keys(labels)).toEqual(['__proto__', 'app']);
      } else {
        const watch = new ProtobufWatchDecoder();
        const frame = [
          ...stringField(1, 'BOOKMARK'),
          ...messageField(2, messageField(1, [...bytes])),
        ];
        const length = Buffer.alloc(4);
        length.writeUInt32BE(frame.length);
        const [event] = watch.push(Buffer.concat([length, Buffer.from(frame)]));
        const annotations = (event?.object as { metadata: { annotations: object } }).metadata
          .annotations;
        expect(Object.keys(annotations)).toEqual(['__proto__']);
        expect(JSON.stringify(annotations)).toBe('{"__proto__":"{\\"polluted\\":true}"}');
      }
    }
  });

  it('decodes a Status the way its JSON reads', () => {
    expect(decodeProtobufObject(notFoundStatus())).toStrictEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "a" not found',
      reason: 'NotFound',
      details: { name: 'a', kind: 'configmaps' },
      code: 404,
    });
  });

  it('refuses bytes without the prefix, a kind it has no decoder for, and cut messages', () => {
    expect(() => decodeProtobufObject(Buffer.from('{"kind":"Pod"}'))).toThrow(ProtoFormatError);
    expect(() => decodeProtobufObject(protobufObject('v1', 'Pod', []))).toThrow(
      'no protobuf decoder for "v1" "Pod"',
    );
    for (const end of [5, 20, 100, POD_METADATA_PROTOBUF.length - 1]) {
      expect(() => decodeProtobufObject(POD_METADATA_PROTOBUF.subarray(0, end))).toThrow(
        ProtoFormatError,
      );
    }
  });

  it('recognises the protobuf media type with or without parameters', () => {
    expect(isProtobufMediaType('application/vnd.kubernetes.protobuf')).toBe(true);
    expect(isProtobufMediaType('application/vnd.kubernetes.protobuf;stream=watch')).toBe(true);
    expect(isProtobufMediaType('application/json')).toBe(false);
    expect(isProtobufMediaType(undefined)).toBe(false);
  });
});

describe('ProtoReader', () => {
  it('reads every int64 within ±2^53 exactly, negatives as ten-byte varints', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (value) => {
        const reader = new ProtoReader(Buffer.from(varint(BigInt(value))));
        expect(reader.int64()).toBe(value);
        expect(reader.done).toBe(true);
      }),
    );
  });

  it('reads int32 varints, negatives sign-extended to ten bytes', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), (value) => {
        expect(new ProtoReader(Buffer.from(varint(BigInt(value)))).int32()).toBe(value);
      }),
    );
  });

  it('fails on a varint longer than ten bytes and a length past the end', () => {
    expect(() => new ProtoReader(Buffer.alloc(11, 0xff)).int64()).toThrow(ProtoFormatError);
    expect(() => new ProtoReader(Buffer.from([0x0a, 0x05, 0x61])).skip(2)).toThrow(
      ProtoFormatError,
    );
  });
});

describe('ProtobufWatchDecoder', () => {
  const recordedEvents = new ProtobufWatchDecoder().push(WATCH_FRAMES);

  it('decodes the real frames: the ADDED object as JSON has it, then the bookmark', () => {
    expect(recordedEvents.map((event) => event.type)).toEqual(['ADDED', 'BOOKMARK']);
    expect(recordedEvents[0]?.object).toStrictEqual(JSON.parse(POD_METADATA_JSON));
    expect(recordedEvents[1]?.object).toStrictEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: {
        resourceVersion: '26482',
        annotations: { 'k8s.io/initial-events-end': 'true' },
      },
    });
  });

  it('gives the same events however the bytes are cut into chunks', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: WATCH_FRAMES.length - 1 }), { maxLength: 12 }),
        (cuts) => {
          const decoder = new ProtobufWatchDecoder();
          const events = [];
          let start = 0;
          for (const cut of [...cuts].sort((a, b) => a - b)) {
            events.push(...decoder.push(WATCH_FRAMES.subarray(start, cut)));
            start = cut;
          }
          events.push(...decoder.push(WATCH_FRAMES.subarray(start)));
          expect(events).toStrictEqual(recordedEvents);
          expect(decoder.end()).toEqual({ events: [], incompleteBytes: 0 });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('gives the same events fed one byte at a time (length prefixes split too)', () => {
    const decoder = new ProtobufWatchDecoder();
    const events = [];
    for (let index = 0; index < WATCH_FRAMES.length; index += 1) {
      events.push(...decoder.push(WATCH_FRAMES.subarray(index, index + 1)));
    }
    expect(events).toStrictEqual(recordedEvents);
  });

  it('reports the bytes of a frame cut short at the end', () => {
    const decoder = new ProtobufWatchDecoder();
    expect(decoder.push(WATCH_FRAMES.subarray(0, 100))).toEqual([]);
    expect(decoder.bufferedBytes).toBe(100);
    expect(decoder.end()).toEqual({ events: [], incompleteBytes: 100 });
  });

  it("reads a bookmark's object apart: its type, resourceVersion and annotations, whatever the kind", () => {
    // A Pod bookmark with a name and a spec the server would not send: both are skipped.
    const metadata = messageField(1, [
      ...stringField(1, 'not-in-a-bookmark'),
      ...stringField(6, '4242'),
      ...messageField(12, [
        ...stringField(1, 'k8s.io/initial-events-end'),
        ...stringField(2, 'true'),
      ]),
    ]);
    const pod = protobufObject('v1', 'Pod', [...metadata, ...messageField(2, [])]);
    const event = (type: string, typeFirst: boolean): Buffer => {
      const typeField = stringField(1, type);
      const objectField = messageField(2, messageField(1, [...pod]));
      const body = Buffer.from(
        typeFirst ? [...typeField, ...objectField] : [...objectField, ...typeField],
      );
      const length = Buffer.alloc(4);
      length.writeUInt32BE(body.length);
      return Buffer.concat([length, body]);
    };
    expect(new ProtobufWatchDecoder().push(event('BOOKMARK', true))).toStrictEqual([
      {
        type: 'BOOKMARK',
        object: {
          kind: 'Pod',
          apiVersion: 'v1',
          metadata: {
            resourceVersion: '4242',
            annotations: { 'k8s.io/initial-events-end': 'true' },
          },
        },
      },
    ]);
    // The type after the object (Go writes it first): the object is read as any other.
    expect(() => new ProtobufWatchDecoder().push(event('BOOKMARK', false))).toThrow(
      'no protobuf decoder for "v1" "Pod"',
    );
  });

  it('fails on a frame that is not a watch event and on one past the size bound', () => {
    const garbage = Buffer.concat([Buffer.from([0, 0, 0, 3]), Buffer.from([0x0a, 0x09, 0x41])]);
    expect(() => new ProtobufWatchDecoder().push(garbage)).toThrow(WatchDecodeError);
    const unknownType = Buffer.from(stringField(1, 'SOMETHING'));
    const framed = Buffer.concat([Buffer.from([0, 0, 0, unknownType.length]), unknownType]);
    expect(() => new ProtobufWatchDecoder().push(framed)).toThrow(
      'got invalid watch event type: SOMETHING',
    );
    expect(() =>
      new ProtobufWatchDecoder({ maxEventBytes: 1000 }).push(Buffer.from([0, 0, 0x10, 0])),
    ).toThrow('an event exceeds 1000 bytes');
  });

  it('makes a watch of the real 410 ERROR frame throw the ApiError it carries', async () => {
    const watch = new WatchStream(Readable.from([EXPIRED_WATCH_FRAME]), {
      request: { method: 'GET', path: '/api/v1/pods' },
      idleTimeoutMs: 0,
      contentType: 'application/vnd.kubernetes.protobuf;stream=watch',
    });
    expect(watch.encoding).toBe('protobuf');
    const json = new WatchStream(Readable.from([]), {
      request: { method: 'GET', path: '/api/v1/pods' },
      idleTimeoutMs: 0,
      contentType: 'application/json;stream=watch',
    });
    expect(json.encoding).toBe('json');
    json.close();
    const failure = await (async () => {
      for await (const event of watch) void event;
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ reason: 'Expired', statusCode: 410 });
  });
});

// A fake server: the real one cannot be made to answer garbage labelled as protobuf.
describe('RestClient and protobuf answers (fake server)', () => {
  let server: FakeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const PROTOBUF_ACCEPT = 'application/vnd.kubernetes.protobuf,application/json';

  it('decodes a protobuf body, and JSON when the server chose JSON', async () => {
    let protobuf = true;
    server = await startFakeServer((_request, response) => {
      response.writeHead(200, {
        'content-type': protobuf ? 'application/vnd.kubernetes.protobuf' : 'application/json',
      });
      response.end(protobuf ? POD_METADATA_PROTOBUF : POD_METADATA_JSON);
    });
    const rest = testClient(server.url);
    try {
      const get = () => rest.client.get().absPath('/api/v1/pods/p').accept(PROTOBUF_ACCEPT);
      expect(await get().execute()).toStrictEqual(JSON.parse(POD_METADATA_JSON));
      protobuf = false;
      expect(await get().execute()).toStrictEqual(JSON.parse(POD_METADATA_JSON));
    } finally {
      await rest.close();
    }
  });

  it('turns garbage labelled protobuf into a ResponseDecodeError, and a protobuf Status into an ApiError', async () => {
    let body: Buffer = Buffer.from('k8s\u0000\u0012\u0099garbage', 'latin1');
    let status = 200;
    server = await startFakeServer((_request, response) => {
      response.writeHead(status, { 'content-type': 'application/vnd.kubernetes.protobuf' });
      response.end(body);
    });
    const rest = testClient(server.url);
    try {
      const get = () => rest.client.get().absPath('/api/v1/pods/p').accept(PROTOBUF_ACCEPT);
      const garbage = await get()
        .execute()
        .catch((error: unknown) => error);
      expect(garbage).toBeInstanceOf(ResponseDecodeError);
      expect((garbage as Error).message).toMatch(/is not a protobuf object this client decodes/);
      body = notFoundStatus();
      status = 404;
      const notFound = await get()
        .execute()
        .catch((error: unknown) => error);
      expect(notFound).toBeInstanceOf(ApiError);
      expect(notFound).toMatchObject({ reason: 'NotFound', statusCode: 404 });
    } finally {
      await rest.close();
    }
  });
});
