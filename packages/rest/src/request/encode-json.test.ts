import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeJson } from './encode-json.js';

function nested(depth: number): unknown {
  let value: unknown = { leaf: 'x' };
  for (let level = 0; level < depth; level += 1) value = level % 2 ? { a: value } : [value, 1];
  return value;
}

describe('encodeJson', () => {
  it('writes what JSON.stringify writes for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(encodeJson(value)).toBe(JSON.stringify(value));
      }),
    );
  });

  it('follows JSON.stringify for toJSON, boxed values, undefined, functions and non-finite numbers', () => {
    const value = {
      when: new Date(0),
      custom: { toJSON: (key: string) => `key ${key}` },
      boxed: [new Number(1), new String('s'), new Boolean(false)],
      gone: undefined,
      fn: () => 1,
      list: [undefined, () => 1, Symbol('s'), NaN, -Infinity, -0],
      '"quoted"\n': 'é\u2028',
    };
    expect(encodeJson(value)).toBe(JSON.stringify(value));
    expect(encodeJson(undefined)).toBeUndefined();
    expect(encodeJson({ toJSON: () => undefined })).toBeUndefined();
  });

  it('refuses cycles and BigInts as JSON.stringify does, and repeats a shared object', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = { again: cycle };
    expect(() => encodeJson(cycle)).toThrow(TypeError);
    expect(() => encodeJson({ big: 1n })).toThrow(TypeError);
    const shared = { s: 1 };
    expect(encodeJson([shared, { shared }])).toBe('[{"s":1},{"shared":{"s":1}}]');
  });

  it('writes an object 10,000 levels deep, which JSON.stringify cannot before Node 26', () => {
    const deep = nested(10_000);
    const text = encodeJson(deep)!;
    expect(text.length).toBeGreaterThan(40_000);
    expect(text.startsWith('{"a":[{"a":[')).toBe(true);
    // JSON.parse copes with that depth: the round trip is exact.
    expect(encodeJson(JSON.parse(text))).toBe(text);
    // Node 22's and 24's JSON.stringify overflow the stack here; Node 26's does not, and agrees.
    const major = Number(process.versions.node.split('.')[0]);
    if (major < 26) expect(() => JSON.stringify(deep)).toThrow(RangeError);
    else expect(JSON.stringify(deep)).toBe(text);
  });
});
