import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { WatchDecodeError } from '../errors.js';
import { decodeProtobufObject, registerProtobufSchema } from './protobuf-object.js';
import { ProtobufWatchDecoder } from './protobuf-watch-decoder.js';
import { MAX_MESSAGE_DEPTH, ProtoFormatError, ProtoReader } from './proto-reader.js';
import { ProtobufSchema, type SchemaTable } from './protobuf-schema.js';
import {
  messageField,
  protobufObject,
  stringField,
  varint,
  varintField,
} from './__fixtures__/proto-writer.js';

// The table-driven decoder on a small table written here in the generated table's form; the
// built-in kinds' table is held to the real server's JSON answers by @k/clientset's e2e tests.

const text = stringField;
const bytesField = messageField;
const number = varintField;

// Types and flags as @k/rest's FieldType / FieldFlag codes.
const STRING = 0;
const BOOL = 1;
const INT32 = 2;
const INT64 = 3;
const BYTES = 8;
const MESSAGE = 9;
const TIME = 10;
const MICROTIME = 11;
const QUANTITY = 13;
const INT_OR_STRING = 14;
const RAW = 15;
const OBJECT_META = 17;
const MAP = 19;
const STRINGS = 20;
const REPEATED = 1;
const POINTER = 2;
const OMIT_EMPTY = 4;
const INLINE = 16;

const TABLE: SchemaTable = {
  kinds: { 'test.k/v1 Thing': 0 },
  messages: [
    // 0: Thing
    [
      ['metadata', 1, OBJECT_META, OMIT_EMPTY],
      ['name', 2, STRING, 0],
      ['note', 3, STRING, OMIT_EMPTY],
      ['count', 4, INT32, OMIT_EMPTY],
      ['optional', 5, INT64, POINTER | OMIT_EMPTY],
      ['enabled', 6, BOOL, POINTER],
      ['ports', 7, INT32, REPEATED],
      ['tags', 8, STRING, REPEATED | OMIT_EMPTY],
      ['spec', 9, MESSAGE, 0, 1],
      ['', 10, MESSAGE, INLINE, 2],
      ['limits', 11, MAP, OMIT_EMPTY, [QUANTITY]],
      ['extra', 12, MAP, OMIT_EMPTY, [STRINGS]],
      ['data', 13, BYTES, OMIT_EMPTY],
      ['port', 14, INT_OR_STRING, 0],
      ['target', 15, INT_OR_STRING, POINTER | OMIT_EMPTY],
      ['renewed', 16, MICROTIME, POINTER | OMIT_EMPTY],
      ['since', 17, TIME, OMIT_EMPTY],
      ['raw', 18, RAW, 0],
      ['children', 19, MESSAGE, REPEATED | OMIT_EMPTY, 1],
      ['labels', 20, MAP, 0, [STRING]],
      ['size', 21, QUANTITY, 0],
    ],
    // 1: Spec
    [
      ['replicas', 1, INT32, POINTER | OMIT_EMPTY],
      ['mode', 2, STRING, 0],
    ],
    // 2: Embedded (its fields show at the embedding field's place)
    [
      ['embeddedA', 1, STRING, OMIT_EMPTY],
      ['embeddedB', 2, BOOL, 0],
    ],
  ],
};

// The same table decoded both ways: by generated code (the default) and by walking the table
// (where code generation is disallowed); the kind's apiVersion tells the two schemas apart.
const VARIANTS = [
  { name: 'generated decoders', apiVersion: 'test.k/v1', generateCode: true },
  { name: 'the table walk', apiVersion: 'test.k/v1walked', generateCode: false },
];
for (const variant of VARIANTS) {
  const table = { ...TABLE, kinds: { [`${variant.apiVersion} Thing`]: 0 } };
  registerProtobufSchema(new ProtobufSchema(() => table, { generateCode: variant.generateCode }));
}

describe.each(VARIANTS)('ProtobufSchema with $name', ({ apiVersion }) => {
  const envelope = (body: number[]): Buffer => protobufObject(apiVersion, 'Thing', body);

  it('writes the JSON form: struct order, omitempty, nulls and zero values of absent fields', () => {
    const decoded = decodeProtobufObject(envelope([...text(2, '')]));
    // JSON.stringify: the key order is encoding/json's too.
    expect(JSON.stringify(decoded)).toBe(
      JSON.stringify({
        kind: 'Thing',
        apiVersion,
        metadata: {},
        name: '',
        enabled: null,
        ports: null,
        spec: { mode: '' },
        embeddedB: false,
        port: 0,
        since: null,
        raw: null,
        labels: null,
        size: '0',
      }),
    );
  });

  it('reads every kind of field, in any order, packed or not', () => {
    const body = [
      ...bytesField(21, text(1, '1500m')),
      ...bytesField(1, [...text(1, 'thing'), ...text(3, 'ns')]),
      ...text(2, 'a'),
      ...text(3, 'note'),
      ...number(4, 7),
      ...number(5, 0), // a pointer to zero: sent, so shown
      ...number(6, 0),
      ...number(7, 80),
      ...bytesField(7, [...varint(443), ...varint(8443)]), // packed
      ...text(8, 'x'),
      ...text(8, ''),
      ...bytesField(9, [...number(1, 0), ...text(2, 'fast')]),
      ...bytesField(10, [...text(1, 'inline'), ...number(2, 1)]),
      ...bytesField(11, [...text(1, 'cpu'), ...bytesField(2, text(1, '100m'))]),
      ...bytesField(11, [...text(1, 'memory'), ...bytesField(2, text(1, '64Mi'))]),
      ...bytesField(12, [
        ...text(1, 'groups'),
        ...bytesField(2, [...text(1, 'a'), ...text(1, 'b')]),
      ]),
      ...bytesField(13, [0, 1, 2, 255]),
      ...bytesField(14, [...number(1, 1), ...text(3, 'http')]),
      ...bytesField(15, [...number(1, 0), ...number(2, -1)]),
      ...bytesField(16, [...number(1, 1_764_756_000), ...number(2, 123_456_789)]),
      ...bytesField(17, number(1, 1_764_756_000)),
      ...bytesField(18, text(1, '{"any":[1,null,"x"]}')),
      ...bytesField(19, text(2, 'first')),
      ...bytesField(19, []),
      ...bytesField(20, [...text(1, 'k'), ...text(2, '')]),
      ...number(99, 5), // unknown: skipped
      ...text(4, 'wrong wire type'), // skipped, as Go's decoder of a newer message would not
    ];
    const decoded = decodeProtobufObject(envelope(body)) as Record<string, unknown>;
    // Plain objects, as JSON.parse makes them (code that checks for one accepts them).
    expect(Object.getPrototypeOf(decoded.spec)).toBe(Object.prototype);
    expect(Object.getPrototypeOf((decoded.children as unknown[])[0])).toBe(Object.prototype);
    expect(JSON.stringify(decoded)).toBe(
      JSON.stringify({
        kind: 'Thing',
        apiVersion,
        metadata: { name: 'thing', namespace: 'ns' },
        name: 'a',
        note: 'note',
        count: 7,
        optional: 0,
        enabled: false,
        ports: [80, 443, 8443],
        tags: ['x', ''],
        spec: { replicas: 0, mode: 'fast' },
        embeddedA: 'inline',
        embeddedB: true,
        limits: { cpu: '100m', memory: '64Mi' },
        extra: { groups: ['a', 'b'] },
        data: 'AAEC/w==',
        port: 'http',
        target: -1,
        renewed: '2025-12-03T10:00:00.123456Z',
        since: '2025-12-03T10:00:00Z',
        raw: { any: [1, null, 'x'] },
        children: [{ mode: 'first' }, { mode: '' }],
        labels: { k: '' },
        size: '1500m',
      }),
    );
  });

  it('keeps a `__proto__` map key as an own key, as JSON.parse does', () => {
    // A legal ConfigMap or Secret data key: assigned, it would set the prototype (or vanish), and
    // a get-then-update would delete it on the server.
    const entry = (key: string, value: number[]) => [...text(1, key), ...value];
    const body = [
      ...text(2, 'a'),
      ...bytesField(11, entry('__proto__', bytesField(2, text(1, '1')))),
      ...bytesField(11, entry('cpu', bytesField(2, text(1, '2')))),
      ...bytesField(20, entry('__proto__', text(2, '{"isAdmin":true}'))),
      ...bytesField(20, entry('constructor', text(2, 'c'))),
      ...bytesField(20, entry('__proto__', text(2, 'last wins'))),
    ];
    const decoded = decodeProtobufObject(envelope(body)) as Record<string, Record<string, unknown>>;
    const json = JSON.parse(
      JSON.stringify({
        kind: 'Thing',
        apiVersion,
        metadata: {},
        name: 'a',
        enabled: null,
        ports: null,
        spec: { mode: '' },
        embeddedB: false,
        limits: { cpu: '2' },
        port: 0,
        since: null,
        raw: null,
        labels: { constructor: 'c' },
        size: '0',
      })
        .replace('"limits":{', '"limits":{"__proto__":"1",')
        .replace('"labels":{', '"labels":{"__proto__":"last wins",'),
    ) as unknown;
    expect(decoded).toStrictEqual(json);
    expect(JSON.stringify(decoded)).toBe(JSON.stringify(json));
    expect(Object.keys(decoded.labels as object)).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(decoded.labels)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(decoded.limits)).toBe(Object.prototype);
    expect(({} as { isAdmin?: boolean }).isAdmin).toBeUndefined();
  });

  it('fails with a ProtoFormatError on truncated bytes and raw bytes that are not JSON', () => {
    const whole = envelope([...text(2, 'name'), ...bytesField(9, text(2, 'mode'))]);
    const typeMetaEnd = 4 + 2 + whole[5]!; // prefix, key and length, the type's bytes
    for (let length = 5; length < whole.length; length += 1) {
      if (length === typeMetaEnd) continue; // a whole envelope without its object: valid
      expect(() => decodeProtobufObject(whole.subarray(0, length))).toThrow(ProtoFormatError);
    }
    expect(() => decodeProtobufObject(envelope(bytesField(18, text(1, '{'))))).toThrow(
      /field "raw" holds raw bytes that are not JSON/,
    );
  });

  it('fails when a field of an embedded message runs past the end of that message', () => {
    // spec (field 9) says it holds 4 bytes, but its string claims 6: two of them are the next
    // field of the outer message.
    const spec = [...varint((9 << 3) | 2), ...varint(4), ...varint((2 << 3) | 2), 6, 0x61, 0x62];
    const body = [...spec, ...text(3, 'note')];
    expect(() => decodeProtobufObject(envelope(body))).toThrow(ProtoFormatError);
  });
});

/**
 * nestedMessages is `depth` messages each holding the next in field 1, the innermost `inner`:
 * written from the outside in, in one buffer (a concat per level would be quadratic).
 */
function nestedMessages(depth: number, inner: number[]): Buffer {
  const lengths = [inner.length];
  for (let level = 1; level <= depth; level += 1) {
    const previous = lengths[level - 1] as number;
    lengths.push(1 + varint(previous).length + previous);
  }
  const bytes = Buffer.alloc(lengths[depth] as number);
  let position = 0;
  for (let level = depth - 1; level >= 0; level -= 1) {
    bytes[position++] = (1 << 3) | 2;
    for (const byte of varint(lengths[level] as number)) bytes[position++] = byte;
  }
  Buffer.from(inner).copy(bytes, position);
  return bytes;
}

// A message that holds itself (as a JSONSchemaProps does). The built-in kinds' table has no such
// cycle, so the real server cannot send this: these frames are written here.
const RECURSIVE: SchemaTable = {
  kinds: { 'test.k/v1 Node': 0 },
  messages: [
    [
      ['child', 1, MESSAGE, POINTER | OMIT_EMPTY, 0],
      ['name', 2, STRING, OMIT_EMPTY],
    ],
  ],
};

describe.each(VARIANTS)('ProtobufSchema with $name on a hostile nesting', ({ generateCode }) => {
  const schema = new ProtobufSchema(() => RECURSIVE, { generateCode });
  const decode = (bytes: Buffer) =>
    schema.decode('test.k/v1', 'Node', new ProtoReader(bytes), {}) as Record<string, unknown>;

  it(`reads messages nested ${MAX_MESSAGE_DEPTH} deep, and fails past that with a ProtoFormatError`, () => {
    let node = decode(nestedMessages(MAX_MESSAGE_DEPTH, text(2, 'leaf')));
    for (let level = 0; level < MAX_MESSAGE_DEPTH; level += 1) {
      node = node.child as Record<string, unknown>;
    }
    expect(node).toEqual({ name: 'leaf' });
    for (const depth of [MAX_MESSAGE_DEPTH + 1, 20_000]) {
      // 20,000 levels overflowed the stack (a RangeError) before the bound.
      expect(() => decode(nestedMessages(depth, text(2, 'leaf')))).toThrow(
        new ProtoFormatError(`embedded messages nest deeper than ${MAX_MESSAGE_DEPTH} levels`),
      );
    }
  });
});

describe('ProtobufWatchDecoder on a hostile nesting', () => {
  it('fails with a WatchDecodeError, not a RangeError', () => {
    registerProtobufSchema(
      new ProtobufSchema(() => ({ ...RECURSIVE, kinds: { 'test.k/v1deep Node': 0 } })),
    );
    const object = protobufObject('test.k/v1deep', 'Node', [...nestedMessages(20_000, [])]);
    const event = [...text(1, 'ADDED'), ...bytesField(2, bytesField(1, [...object]))];
    const frame = Buffer.concat([Buffer.alloc(4), Buffer.from(event)]);
    frame.writeUInt32BE(event.length);
    expect(() => new ProtobufWatchDecoder().push(frame)).toThrow(
      new WatchDecodeError(
        `unable to decode an event from the watch stream: embedded messages nest deeper than ${MAX_MESSAGE_DEPTH} levels`,
      ),
    );
  });
});

describe('ProtobufSchema', () => {
  it('generates decoders only from a table whose codes are integers and writes names as data', () => {
    // A message reference is written into the source as an index: text there would run.
    const hostile = {
      kinds: { 'test.k/v1 Hostile': 0 },
      messages: [[['spec', 1, MESSAGE, 0, '0] ?? (globalThis.injected = true) ?? d[0']]],
    } as unknown as SchemaTable;
    const refused = new ProtobufSchema(() => hostile);
    expect(() =>
      refused.decode('test.k/v1', 'Hostile', new ProtoReader(Buffer.from(bytesField(1, []))), {}),
    ).toThrow(ProtoFormatError);
    expect((globalThis as { injected?: boolean }).injected).toBeUndefined();

    const oddName = 'a"b\\c\n${d}\u2028';
    const odd = new ProtobufSchema(() => ({
      kinds: { 'test.k/v1 Odd': 0 },
      messages: [[[oddName, 1, STRING, 0]]],
    }));
    const decoded = odd.decode('test.k/v1', 'Odd', new ProtoReader(Buffer.from(text(1, 'x'))), {});
    expect(decoded).toEqual({ kind: 'Odd', apiVersion: 'test.k/v1', [oddName]: 'x' });
  });

  it('walks the table by itself where code generation from strings is disallowed', () => {
    // A child node with --disallow-code-generation-from-strings decodes with the default schema.
    const body = [...text(2, 'a'), ...bytesField(9, text(2, 'fast')), ...bytesField(19, [])];
    const program = [
      `import { ProtobufSchema } from ${JSON.stringify(new URL('./protobuf-schema.ts', import.meta.url).pathname)};`,
      `import { ProtoReader } from ${JSON.stringify(new URL('./proto-reader.ts', import.meta.url).pathname)};`,
      `const schema = new ProtobufSchema(() => (${JSON.stringify(TABLE)}));`,
      `const reader = new ProtoReader(Buffer.from(${JSON.stringify(body)}));`,
      `process.stdout.write(JSON.stringify(schema.decode('test.k/v1', 'Thing', reader, {})));`,
    ].join('\n');
    const output = execFileSync(
      process.execPath,
      [
        '--disallow-code-generation-from-strings',
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        program,
      ],
      { encoding: 'utf8' },
    );
    const expected = new ProtobufSchema(() => TABLE).decode(
      'test.k/v1',
      'Thing',
      new ProtoReader(Buffer.from(body)),
      {},
    );
    expect(output).toBe(JSON.stringify(expected));
  });

  it('answers only for its kinds, and reads its table once, on first use', () => {
    let loads = 0;
    const counted = new ProtobufSchema(() => {
      loads += 1;
      return TABLE;
    });
    expect(loads).toBe(0);
    expect(counted.has('test.k/v1', 'Thing')).toBe(true);
    expect(counted.has('test.k/v1', 'Other')).toBe(false);
    expect(counted.decode('v1', 'Thing', new ProtoReader(Buffer.alloc(0)), {})).toBeUndefined();
    expect(loads).toBe(1);
  });
});
