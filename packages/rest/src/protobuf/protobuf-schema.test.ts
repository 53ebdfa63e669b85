import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { decodeProtobufObject, registerProtobufSchema } from './protobuf-object.js';
import { ProtoFormatError, ProtoReader } from './proto-reader.js';
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
