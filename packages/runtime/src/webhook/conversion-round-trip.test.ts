import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConversionDefinition } from './conversion.js';
import { jsonDifferences } from './conversion-json.js';
import { checkRoundTrip } from './conversion-round-trip.js';
import {
  GROUP,
  lossyWebAppConversion,
  STASH,
  webAppConversion,
  type Size,
  type WebApp,
  type WebAppV1alpha1,
} from './__fixtures__/webapp-conversion.js';

// Objects as the API server stores them: metadata the server owns (uid, resourceVersion,
// managedFields), labels and annotations absent or not empty (an empty map is not stored).
const text = fc.string({ minLength: 1, maxLength: 12 });
const stringMap = fc.option(
  fc.dictionary(
    fc
      .stringMatching(/^[a-z][a-z0-9]{0,6}(\.[a-z][a-z0-9]{0,6}){0,2}\/[a-z][a-z0-9]{0,8}$/)
      .filter((key) => key !== STASH),
    fc.string({ maxLength: 16 }),
    { minKeys: 1, maxKeys: 3 },
  ),
  { nil: undefined },
);
const metadata = fc.record(
  {
    name: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
    namespace: fc.constantFrom('team-a', 'team-b'),
    uid: fc.uuid(),
    resourceVersion: fc.integer({ min: 1 }).map(String),
    generation: fc.integer({ min: 1, max: 100 }),
    labels: stringMap,
    annotations: stringMap,
    managedFields: fc
      .constant(null)
      .map(() => [{ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:spec': {} } }]),
  },
  { requiredKeys: ['name', 'namespace', 'uid', 'resourceVersion'] },
);
const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });

const hubObject: fc.Arbitrary<WebApp> = fc.record(
  {
    apiVersion: fc.constant(`${GROUP}/v1`),
    kind: fc.constant('WebApp'),
    metadata,
    spec: fc.record(
      {
        image: text,
        replicas: fc.integer({ min: 0, max: 20 }),
        hosts: fc.array(fc.domain(), { maxLength: 4 }),
      },
      { requiredKeys: ['image'] },
    ),
    status: fc.record({ readyReplicas: fc.nat(20), url: fc.webUrl() }, { requiredKeys: [] }),
  },
  { requiredKeys: ['apiVersion', 'kind', 'metadata', 'spec'] },
);

const spokeObject: fc.Arbitrary<WebAppV1alpha1> = fc.record(
  {
    apiVersion: fc.constant(`${GROUP}/v1alpha1`),
    kind: fc.constant('WebApp'),
    metadata,
    spec: fc.record(
      {
        image: text,
        size: fc.constantFrom<Size>('small', 'medium', 'large'),
        host: fc.domain(),
      },
      { requiredKeys: ['image'] },
    ),
    status: fc.record({ readyReplicas: optional(fc.nat(20)) }, { requiredKeys: [] }),
  },
  { requiredKeys: ['apiVersion', 'kind', 'metadata', 'spec'] },
);

describe('checkRoundTrip on a WebApp with a v1 hub and a v1alpha1 spoke', () => {
  it('every v1 object survives v1alpha1 and back (what v1alpha1 cannot hold is stashed)', () => {
    fc.assert(
      fc.property(hubObject, (object) => {
        expect(checkRoundTrip(webAppConversion, object)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('every v1alpha1 object survives v1 and back', () => {
    fc.assert(
      fc.property(spokeObject, (object) => {
        expect(checkRoundTrip(webAppConversion, object)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('catches a converter that drops what v1alpha1 cannot hold', () => {
    const survives = fc.property(hubObject, (object) => {
      expect(checkRoundTrip(lossyWebAppConversion, object)).toEqual([]);
    });
    expect(() => fc.assert(survives, { numRuns: 300 })).toThrow(/Property failed/);
    const object: WebApp = {
      apiVersion: `${GROUP}/v1`,
      kind: 'WebApp',
      metadata: { name: 'shop', namespace: 'team-a' },
      spec: { image: 'shop:1', replicas: 4, hosts: ['a.example', 'b.example'] },
    };
    expect(checkRoundTrip(lossyWebAppConversion, object)).toEqual([
      { through: 'v1alpha1', path: 'spec.replicas', expected: 4, actual: 5 },
      {
        through: 'v1alpha1',
        path: 'spec.hosts',
        expected: ['a.example', 'b.example'],
        actual: undefined,
      },
    ]);
  });

  it('tells where labels or annotations came back different', () => {
    const leaky: ConversionDefinition<WebApp> = {
      ...webAppConversion,
      spokes: {
        v1alpha1: {
          toHub: webAppConversion.spokes.v1alpha1.toHub,
          fromHub: (hub) => ({
            ...hub,
            metadata: { ...hub.metadata, annotations: { 'a.b/c': 'left' } },
          }),
        },
      },
    };
    const object: WebApp = {
      apiVersion: `${GROUP}/v1`,
      kind: 'WebApp',
      metadata: { name: 'shop' },
      spec: { image: 'shop:1' },
    };
    expect(checkRoundTrip(leaky, object)).toEqual([
      {
        through: 'v1alpha1',
        path: 'metadata.annotations',
        expected: undefined,
        actual: { 'a.b/c': 'left' },
      },
    ]);
  });

  it('never changes the object, even with converters that change theirs in place', () => {
    const inPlace: ConversionDefinition<WebApp, { v1alpha1: WebApp }> = {
      ...webAppConversion,
      spokes: {
        v1alpha1: {
          toHub: (old) => {
            old.spec.image = 'changed';
            if (old.metadata?.labels) old.metadata.labels['app'] = 'changed';
            return old;
          },
          fromHub: (hub) => hub,
        },
      },
    };
    const object = deepFrozen({
      apiVersion: `${GROUP}/v1alpha1`,
      kind: 'WebApp',
      metadata: { name: 'shop', labels: { app: 'shop' } },
      spec: { image: 'shop:1' },
    });
    expect(checkRoundTrip(inPlace, object)).toEqual([
      { through: 'v1', path: 'metadata.labels.app', expected: 'shop', actual: 'changed' },
      { through: 'v1', path: 'spec.image', expected: 'shop:1', actual: 'changed' },
    ]);
    expect(object.spec.image).toBe('shop:1');
  });

  it('throws the conversion failure of a converter that throws, and refuses what is not an object', () => {
    const throwing: ConversionDefinition<WebApp, { v1alpha1: WebApp }> = {
      ...webAppConversion,
      spokes: {
        v1alpha1: {
          toHub: (old) => old,
          fromHub: () => {
            throw new Error('no');
          },
        },
      },
    };
    const object = { apiVersion: `${GROUP}/v1`, kind: 'WebApp', metadata: { name: 'a' }, spec: {} };
    expect(() => checkRoundTrip(throwing, object)).toThrow(
      expect.objectContaining({ code: 'ERR_RUNTIME_CONVERSION' }),
    );
    expect(() => checkRoundTrip(throwing, object)).toThrow(/v1alpha1's fromHub threw: no$/);
    const cycle: Record<string, unknown> = { apiVersion: `${GROUP}/v1`, kind: 'WebApp' };
    cycle['spec'] = cycle;
    expect(() => checkRoundTrip(webAppConversion, cycle)).toThrow(
      expect.objectContaining({ code: 'ERR_RUNTIME_INVALID_ARGUMENT' }),
    );
    expect(() => checkRoundTrip(webAppConversion, 'x')).toThrow(
      expect.objectContaining({ code: 'ERR_RUNTIME_INVALID_ARGUMENT' }),
    );
  });
});

describe('jsonDifferences', () => {
  it('compares as JSON: key order and undefined values ignored, arrays by index', () => {
    expect(jsonDifferences({ a: 1, b: undefined, c: [1, 2] }, { c: [1, 2], a: 1 }, 10)).toEqual([]);
    expect(jsonDifferences({ c: [1, 2] }, { c: [1] }, 10)).toEqual([
      { path: 'c[1]', expected: 2, actual: undefined },
    ]);
    expect(jsonDifferences({ 'a b': { x: 1 } }, { 'a b': { x: 2 } }, 10)).toEqual([
      { path: '["a b"].x', expected: 1, actual: 2 },
    ]);
    expect(jsonDifferences([1, 2, 3], [4, 5, 6], 2)).toHaveLength(2);
  });

  it('reads only own keys: an own __proto__ on one side is a difference', () => {
    const own = JSON.parse('{"__proto__":{"x":1}}') as unknown;
    expect(jsonDifferences(own, {}, 10)).toEqual([
      { path: '__proto__', expected: { x: 1 }, actual: undefined },
    ]);
  });

  it('walks trees 10,000 levels deep without recursion', () => {
    const deep = (leaf: number) =>
      JSON.parse('{"a":'.repeat(10_000) + String(leaf) + '}'.repeat(10_000)) as unknown;
    const [difference] = jsonDifferences(deep(1), deep(2), 10);
    expect(difference?.expected).toBe(1);
    expect(difference?.path.split('.')).toHaveLength(10_000);
    expect(jsonDifferences(deep(1), deep(1), 10)).toEqual([]);
  });
});

function deepFrozen<T>(value: T): T {
  const stack: unknown[] = [value];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (typeof next === 'object' && next !== null) {
      Object.freeze(next);
      stack.push(...(Object.values(next) as unknown[]));
    }
  }
  return value;
}
