import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { managedFieldsMember } from './managed-fields-member.js';

const MANAGED_FIELDS = [
  {
    manager: 'kubectl',
    operation: 'Apply',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:data': { 'f:a': {}, 'k:{"name":"x"}': { '.': {} } }, 'f:b]}': {} },
  },
];

/** cut applies managedFieldsMember to `text` and returns what is left, or undefined. */
function cut(text: string): string | undefined {
  const bytes = Buffer.from(text);
  const range = managedFieldsMember(bytes, 0, bytes.length);
  if (!range) return undefined;
  return bytes.toString('utf8', 0, range[0]) + bytes.toString('utf8', range[1]);
}

function withoutManagedFields(frame: unknown): unknown {
  const copy = structuredClone(frame) as { object?: { metadata?: Record<string, unknown> } };
  delete copy.object?.metadata?.managedFields;
  return copy;
}

describe('managedFieldsMember', () => {
  it.each([
    ['between other members', { name: 'a', managedFields: MANAGED_FIELDS, uid: 'u' }],
    ['last, as the API server writes it', { name: 'a', uid: 'u', managedFields: MANAGED_FIELDS }],
    ['first', { managedFields: MANAGED_FIELDS, name: 'a' }],
    ['alone', { managedFields: MANAGED_FIELDS }],
    ['null', { name: 'a', managedFields: null }],
  ])('cuts metadata.managedFields %s', (_, metadata) => {
    const frame = { type: 'ADDED', object: { kind: 'Pod', metadata, spec: { x: [1, 'y'] } } };
    const left = cut(JSON.stringify(frame));
    expect(left).toBeDefined();
    expect(JSON.parse(left!)).toEqual(withoutManagedFields(frame));
  });

  it('cuts it from pretty-printed JSON and with the object before the type', () => {
    const frame = {
      object: { metadata: { name: 'a', managedFields: MANAGED_FIELDS, labels: { b: 'c' } } },
      type: 'MODIFIED',
    };
    const left = cut(JSON.stringify(frame, null, 2));
    expect(JSON.parse(left!)).toEqual(withoutManagedFields(frame));
  });

  it('skips strings with brackets, escaped quotes and non-ASCII text before it', () => {
    const frame = {
      type: 'ADDED',
      object: {
        kind: 'ConfigMap',
        data: { '"managedFields":[': '}]{["\\"', ünï: 'cödé ✓' },
        metadata: {
          annotations: { note: '"managedFields":[], "metadata":{}' },
          managedFields: MANAGED_FIELDS,
        },
      },
    };
    expect(JSON.parse(cut(JSON.stringify(frame))!)).toEqual(withoutManagedFields(frame));
  });

  it.each([
    ['a managedFields key elsewhere', { type: 'ADDED', object: { spec: { managedFields: [1] } } }],
    [
      'managedFields outside metadata',
      { type: 'ADDED', object: { managedFields: [1], metadata: { name: 'a' } } },
    ],
    ['metadata outside object', { type: 'ADDED', metadata: { managedFields: [1] } }],
    ['no managedFields', { type: 'BOOKMARK', object: { metadata: { resourceVersion: '3' } } }],
    ['an empty metadata', { type: 'ADDED', object: { metadata: {} } }],
    ['an ERROR Status', { type: 'ERROR', object: { kind: 'Status', code: 410 } }],
  ])('leaves a frame with %s alone', (_, frame) => {
    expect(cut(JSON.stringify(frame))).toBeUndefined();
  });

  it.each([
    ['a key spelled with escapes', '{"object":{"metadata":{"managed\\u0046ields":[1]}}}'],
    ['an unterminated value', '{"object":{"metadata":{"managedFields":[{"a":"b"}'],
    ['an unterminated string', '{"object":{"metadata":{"name":"a'],
    ['not an object', '["object",{"metadata":{"managedFields":[]}}]'],
    ['a missing colon', '{"object" {"metadata":{"managedFields":[]}}}'],
    ['a missing comma', '{"type":"ADDED" "object":{"metadata":{"managedFields":[]}}}'],
    ['a metadata that is not an object', '{"object":{"metadata":["managedFields"]}}'],
    ['nothing', ''],
  ])('returns undefined for %s', (_, text) => {
    expect(cut(text)).toBeUndefined();
  });

  it('works on a range inside a larger buffer', () => {
    const line = JSON.stringify({ type: 'ADDED', object: { metadata: { managedFields: [] } } });
    const bytes = Buffer.from(`xx${line}\n{"object":`);
    const range = managedFieldsMember(bytes, 2, 2 + Buffer.byteLength(line));
    expect(range).toBeDefined();
    const left =
      bytes.toString('utf8', 2, range![0]) + bytes.toString('utf8', range![1], 2 + line.length);
    expect(JSON.parse(left)).toEqual({ type: 'ADDED', object: { metadata: {} } });
  });

  it('leaves exactly the frame without object.metadata.managedFields, for any JSON', () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    const metadata = fc
      .tuple(fc.dictionary(fc.string(), json, { maxKeys: 4 }), json, fc.nat())
      .map(([members, managedFields, position]) => {
        const entries = Object.entries(members).filter(([key]) => key !== 'managedFields');
        entries.splice(position % (entries.length + 1), 0, ['managedFields', managedFields]);
        return Object.fromEntries(entries);
      });
    const frame = fc.record({
      type: fc.constantFrom('ADDED', 'MODIFIED', 'DELETED'),
      object: fc.record({ kind: fc.string(), metadata, spec: json }),
    });
    fc.assert(
      fc.property(frame, fc.boolean(), (value, pretty) => {
        const left = cut(pretty ? JSON.stringify(value, null, 1) : JSON.stringify(value));
        expect(left).toBeDefined();
        // Compared as JSON: the text cannot hold what a JSON round trip loses (-0 becomes 0).
        const expected: unknown = JSON.parse(JSON.stringify(withoutManagedFields(value)));
        expect(JSON.parse(left!)).toEqual(expected);
      }),
    );
  });
});
