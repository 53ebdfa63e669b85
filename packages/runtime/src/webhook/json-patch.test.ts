import fc from 'fast-check';
import jsonPatch from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { createJsonPatch, stringifyJson, toJsonValue, type JsonValue } from './json-patch.js';

/** deepChain builds `{"a":{"a":…leaf}}` `depth` levels deep, without recursion. */
function deepChain(depth: number, leaf: JsonValue): JsonValue {
  let value = leaf;
  for (let level = 0; level < depth; level++) value = { a: value };
  return value;
}

/** apply is the oracle: fast-json-patch's RFC 6902 applier, on a copy of `document`. */
function apply(document: JsonValue, operations: ReturnType<typeof createJsonPatch>): JsonValue {
  return jsonPatch.applyPatch(
    structuredClone(document),
    operations.map((operation) => ({ ...operation })) as jsonPatch.Operation[],
    true,
    false,
  ).newDocument;
}

describe('createJsonPatch', () => {
  it('answers no operation for equal values, and replaces the root when its type or value changes', () => {
    expect(createJsonPatch({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toEqual([]);
    expect(createJsonPatch(1, 2)).toEqual([{ op: 'replace', path: '', value: 2 }]);
    expect(createJsonPatch({ a: 1 }, [1])).toEqual([{ op: 'replace', path: '', value: [1] }]);
    expect(createJsonPatch(null, {})).toEqual([{ op: 'replace', path: '', value: {} }]);
  });

  it('compares objects key by key: removals first, then the keys of the new object in its order', () => {
    expect(
      createJsonPatch(
        { gone: 1, kept: { inner: 'x', old: true }, changed: 1 },
        { kept: { inner: 'y', fresh: [1] }, changed: 'one', added: null },
      ),
    ).toEqual([
      { op: 'remove', path: '/gone' },
      { op: 'remove', path: '/kept/old' },
      { op: 'replace', path: '/kept/inner', value: 'y' },
      { op: 'add', path: '/kept/fresh', value: [1] },
      { op: 'replace', path: '/changed', value: 'one' },
      { op: 'add', path: '/added', value: null },
    ]);
  });

  it('replaces a value whose type changes (object, array, scalar, null)', () => {
    expect(
      createJsonPatch(
        { a: { b: 1 }, c: [1], d: 1, e: null },
        { a: [1], c: { b: 1 }, d: '1', e: 0 },
      ),
    ).toEqual([
      { op: 'replace', path: '/a', value: [1] },
      { op: 'replace', path: '/c', value: { b: 1 } },
      { op: 'replace', path: '/d', value: '1' },
      { op: 'replace', path: '/e', value: 0 },
    ]);
  });

  it('escapes keys as RFC 6901 pointer tokens (~ as ~0, / as ~1)', () => {
    const operations = createJsonPatch({}, { 'a/b': 1, 'm~n': 2, '~1': 3, '': 4 });
    expect(operations.map((operation) => operation.path)).toEqual(['/a~1b', '/m~0n', '/~01', '/']);
    expect(apply({}, operations)).toEqual({ 'a/b': 1, 'm~n': 2, '~1': 3, '': 4 });
  });

  it('grows an array by adding at the end and shrinks it by removing from the last down', () => {
    expect(createJsonPatch([1, 2], [1, 3, 4, 5])).toEqual([
      { op: 'replace', path: '/1', value: 3 },
      { op: 'add', path: '/2', value: 4 },
      { op: 'add', path: '/3', value: 5 },
    ]);
    const shrink = createJsonPatch({ list: [1, 2, 3, 4] }, { list: [0] });
    expect(shrink).toEqual([
      { op: 'replace', path: '/list/0', value: 0 },
      { op: 'remove', path: '/list/3' },
      { op: 'remove', path: '/list/2' },
      { op: 'remove', path: '/list/1' },
    ]);
    expect(apply({ list: [1, 2, 3, 4] }, shrink)).toEqual({ list: [0] });
  });

  it('adds and removes a __proto__ key as data, never touching a prototype', () => {
    const plain = JSON.parse('{"a":1}') as JsonValue;
    const withProto = JSON.parse('{"a":1,"__proto__":{"polluted":true}}') as JsonValue;
    expect(createJsonPatch(plain, withProto)).toEqual([
      { op: 'add', path: '/__proto__', value: { polluted: true } },
    ]);
    expect(createJsonPatch(withProto, plain)).toEqual([{ op: 'remove', path: '/__proto__' }]);
    expect(
      createJsonPatch(withProto, JSON.parse('{"a":1,"__proto__":{"polluted":false}}') as JsonValue),
    ).toEqual([{ op: 'replace', path: '/__proto__/polluted', value: false }]);
    // A key named like a prototype member of `from` is not taken as present in it.
    expect(createJsonPatch({}, { constructor: 1, toString: 2 })).toEqual([
      { op: 'add', path: '/constructor', value: 1 },
      { op: 'add', path: '/toString', value: 2 },
    ]);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('diffs a pair 10,000 levels deep without overflowing the stack', () => {
    const operations = createJsonPatch(deepChain(10_000, 1), deepChain(10_000, 2));
    expect(operations).toHaveLength(1);
    expect(operations[0]).toEqual({ op: 'replace', path: '/a'.repeat(10_000), value: 2 });
    const added = createJsonPatch({}, { deep: deepChain(10_000, 'leaf') });
    expect(added).toHaveLength(1);
    expect(stringifyJson(added as unknown as JsonValue)).toContain('"leaf"');
  });

  it('stays linear on 100,000-element arrays: one operation per changed index, no search for moves', () => {
    const size = 100_000;
    const from = Array.from({ length: size }, (_, index) => index);
    const oneChanged = [...from];
    oneChanged[50_000] = -1;
    expect(createJsonPatch(from, oneChanged)).toEqual([
      { op: 'replace', path: '/50000', value: -1 },
    ]);
    // An element inserted at the front shifts every other one: n replaces and one add, not a move search.
    const shifted = [-1, ...from];
    const operations = createJsonPatch(from, shifted);
    expect(operations).toHaveLength(size + 1);
    expect(operations.filter((operation) => operation.op === 'replace')).toHaveLength(size);
    expect(operations.at(-1)).toEqual({ op: 'add', path: `/${size}`, value: size - 1 });
    const hostile = Array.from({ length: size }, (_, index) => ({ key: `v${index}` }));
    expect(createJsonPatch(from, hostile)).toHaveLength(size);
    expect(createJsonPatch(from, [])).toHaveLength(size);
  });
});

/** key mixes a few shared names (so `from` and `to` overlap) with escaping-prone and random ones. */
const key = fc.oneof(
  fc.constantFrom('a', 'b', 'c', 'a/b', 'm~n', '~1', '', '0'),
  // The oracle refuses `__proto__` and `constructor/prototype` paths: those have unit cases above.
  fc.string({ maxLength: 4 }).filter((name) => name !== '__proto__' && name !== 'prototype'),
);
const { json } = fc.letrec<{ json: JsonValue }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom<JsonValue>(null, true, false, 0, 1, ''),
    fc.oneof(
      fc.string(),
      // -0 is not a JSON value (it reads back as 0), so a patch cannot and need not tell it from 0.
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((number) => number + 0),
      fc.integer(),
    ),
    fc.array(tie('json'), { maxLength: 5 }),
    fc.dictionary(key, tie('json'), { maxKeys: 5 }),
  ),
}));

describe('createJsonPatch properties (fast-check, checked by an independent RFC 6902 applier)', () => {
  it('applying the patch of any pair of JSON values to the first gives the second', () => {
    fc.assert(
      fc.property(json, json, (from, to) => {
        expect(apply(from, createJsonPatch(from, to))).toEqual(to);
      }),
      { numRuns: 500 },
    );
  });

  it('patches nothing between a value and its copy', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(createJsonPatch(value, toJsonValue(value))).toEqual([]);
      }),
    );
  });
});

describe('toJsonValue', () => {
  it('copies as JSON would: drops undefined and functions, calls toJSON, nulls what JSON cannot hold', () => {
    const source = {
      when: new Date('2026-01-02T03:04:05Z'),
      gone: undefined,
      method: () => 1,
      list: [undefined, Number.NaN, Infinity, 1],
      nested: { kept: 'yes' },
    };
    const copy = toJsonValue(source);
    expect(copy).toEqual({
      when: '2026-01-02T03:04:05.000Z',
      list: [null, null, null, 1],
      nested: { kept: 'yes' },
    });
    expect(copy).toEqual(JSON.parse(JSON.stringify(source)));
    expect((copy as { nested: unknown }).nested).not.toBe(source.nested);
  });

  it('keeps a __proto__ key as an own data property of a plain object', () => {
    const copy = toJsonValue(JSON.parse('{"__proto__":{"polluted":true},"a":1}')) as Record<
      string,
      unknown
    >;
    expect(Object.hasOwn(copy, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(copy['polluted']).toBeUndefined();
    expect(Object.keys(copy)).toEqual(['__proto__', 'a']);
    expect(stringifyJson(copy as JsonValue)).toBe('{"__proto__":{"polluted":true},"a":1}');
  });

  it('names where a cycle or a bigint is, and copies a shared subtree once per place', () => {
    const cyclic: Record<string, unknown> = { spec: { list: [1] } };
    (cyclic['spec'] as { list: unknown[] }).list.push(cyclic);
    expect(() => toJsonValue(cyclic)).toThrow(
      new TypeError('the value is circular, at "/spec/list/1"'),
    );
    expect(() => toJsonValue({ 'a/b': [1n] })).toThrow(
      new TypeError('a bigint cannot be JSON, at "/a~1b/0"'),
    );
    const shared = { x: 1 };
    expect(toJsonValue({ one: shared, two: [shared] })).toEqual({ one: { x: 1 }, two: [{ x: 1 }] });
  });

  it('copies a value 10,000 levels deep', () => {
    const deep = deepChain(10_000, [1]);
    const copy = toJsonValue(deep);
    // (vitest's toBe would walk the value recursively to describe it.)
    expect(copy === deep).toBe(false);
    expect(createJsonPatch(deep, copy)).toEqual([]);
    expect(createJsonPatch(deep, toJsonValue(deepChain(10_000, [2])))).toHaveLength(1);
  });
});

describe('stringifyJson', () => {
  it('writes what JSON.stringify writes', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(stringifyJson(value as JsonValue)).toBe(JSON.stringify(value));
      }),
    );
  });

  it('leaves out undefined and function members, writes them null in arrays and honours toJSON, as JSON.stringify', () => {
    const value = {
      absent: undefined,
      method: () => 1,
      list: [undefined, () => 1, 2],
      when: new Date(0),
      nested: { toJSON: () => ({ replaced: true }) },
    };
    expect(stringifyJson(value as unknown as JsonValue)).toBe(JSON.stringify(value));
  });

  it('writes a value deeper than JSON.stringify can (on Node 22 and 24)', () => {
    const deep = deepChain(10_000, [1, 'two']);
    const text = stringifyJson(deep);
    expect(text).toBe(`${'{"a":'.repeat(10_000)}[1,"two"]${'}'.repeat(10_000)}`);
    // Node 22's and 24's JSON.stringify overflow the stack here; Node 26's does not, and agrees.
    const major = Number(process.versions.node.split('.')[0]);
    if (major < 26) expect(() => JSON.stringify(deep)).toThrow(RangeError);
    else expect(JSON.stringify(deep)).toBe(text);
  });
});
