import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { WebApp as WebAppV1alpha1 } from '../generated/web-app-v1alpha1.js';
import type { WebApp as WebAppV1beta1 } from '../generated/web-app-v1beta1.js';
import { fromHub, toHub } from './webapp-conversion.js';

// What the API server may send of a WebApp in either version: every optional field present or not.
const quantity = fc.oneof(
  fc.integer({ min: 0, max: 1_000_000 }),
  fc.constantFrom('100m', '0.5', '1Gi', '64Mi'),
);
const resourceName = fc.oneof(
  fc.constantFrom('cpu', 'memory', 'ephemeral-storage', '__proto__', 'constructor'),
  fc.string(),
);
const quantities = fc.dictionary(resourceName, quantity, { maxKeys: 4 });
const env = fc.array(
  fc.record({ name: fc.string({ minLength: 1 }), value: fc.string() }, { requiredKeys: ['name'] }),
  { maxLength: 4 },
);
const container = fc.record(
  {
    image: fc.string({ minLength: 1 }),
    port: fc.integer({ min: 1, max: 65535 }),
    env,
    resources: fc.record({ requests: quantities, limits: quantities }, { requiredKeys: [] }),
  },
  { requiredKeys: ['image'] },
);
const workload = { replicas: fc.integer({ min: 0, max: 50 }), paused: fc.boolean() };
const metadata = fc.record(
  {
    name: fc.string(),
    namespace: fc.string(),
    uid: fc.uuid(),
    generation: fc.nat(),
    resourceVersion: fc.string(),
    labels: fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
    annotations: fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
    finalizers: fc.array(fc.string(), { maxLength: 2 }),
  },
  { requiredKeys: [] },
);
const status = fc.record(
  {
    replicas: fc.nat(),
    readyReplicas: fc.nat(),
    observedGeneration: fc.nat(),
    selector: fc.string(),
    conditions: fc.array(
      fc.record(
        {
          type: fc.constantFrom('Available', 'Progressing', 'Degraded'),
          status: fc.constantFrom('True' as const, 'False' as const, 'Unknown' as const),
          observedGeneration: fc.nat(),
          lastTransitionTime: fc.constant('2026-12-07T00:00:00Z'),
          reason: fc.string(),
          message: fc.string(),
        },
        { requiredKeys: ['type', 'status', 'lastTransitionTime', 'reason', 'message'] },
      ),
      { maxLength: 3 },
    ),
  },
  { requiredKeys: [] },
);
/** asJson is `value` as a webhook receives it: parsed from JSON (plain objects; a `__proto__` key an own field). */
function asJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

const envelope = { kind: fc.constant('WebApp' as const), metadata, status };
const envelopeKeys = {
  requiredKeys: ['apiVersion', 'kind', 'spec'] as ('apiVersion' | 'kind' | 'spec')[],
};

const v1alpha1: fc.Arbitrary<WebAppV1alpha1> = fc
  .record(
    {
      apiVersion: fc.constant('apps.k.example/v1alpha1' as const),
      ...envelope,
      spec: fc
        .tuple(container, fc.record(workload, { requiredKeys: [] }))
        .map(([fields, rest]) => ({ ...fields, ...rest })),
    },
    envelopeKeys,
  )
  .map(asJson);

const v1beta1: fc.Arbitrary<WebAppV1beta1> = fc
  .record(
    {
      apiVersion: fc.constant('apps.k.example/v1beta1' as const),
      ...envelope,
      spec: fc.record({ container, ...workload }, { requiredKeys: ['container'] }),
    },
    envelopeKeys,
  )
  .map(asJson);

/** frozen is `value` deep-frozen, so a converter that changes its input throws. */
function frozen<T>(value: T): T {
  const pending: unknown[] = [value];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next !== 'object' || next === null) continue;
    Object.freeze(next);
    pending.push(...Object.values(next as Record<string, unknown>));
  }
  return value;
}

describe('the WebApp conversion between v1alpha1 and v1beta1 (the hub)', () => {
  it('moves the container’s fields into spec.container and back', () => {
    const alpha: WebAppV1alpha1 = {
      apiVersion: 'apps.k.example/v1alpha1',
      kind: 'WebApp',
      metadata: { name: 'hello', namespace: 'demo', annotations: { note: 'kept' } },
      spec: {
        image: 'nginx:1.27',
        replicas: 2,
        port: 8080,
        env: [{ name: 'GREETING', value: 'hi' }],
        resources: { requests: { cpu: '100m' } },
        paused: false,
      },
      status: { replicas: 2, readyReplicas: 1 },
    };
    const beta: WebAppV1beta1 = {
      apiVersion: 'apps.k.example/v1beta1',
      kind: 'WebApp',
      metadata: { name: 'hello', namespace: 'demo', annotations: { note: 'kept' } },
      spec: {
        container: {
          image: 'nginx:1.27',
          port: 8080,
          env: [{ name: 'GREETING', value: 'hi' }],
          resources: { requests: { cpu: '100m' } },
        },
        replicas: 2,
        paused: false,
      },
      status: { replicas: 2, readyReplicas: 1 },
    };
    expect(toHub(alpha)).toStrictEqual(beta);
    expect(fromHub(beta)).toStrictEqual(alpha);
  });

  it('gives back every v1alpha1 WebApp unchanged after a round trip through v1beta1 (and leaves its input alone)', () => {
    fc.assert(
      fc.property(v1alpha1, (webapp) => {
        const copy = structuredClone(webapp);
        const hub = toHub(frozen(webapp));
        expect(hub.apiVersion).toBe('apps.k.example/v1beta1');
        expect(fromHub(frozen(hub))).toStrictEqual(copy);
      }),
      { numRuns: 500 },
    );
  });

  it('gives back every v1beta1 WebApp unchanged after a round trip through v1alpha1 (and leaves its input alone)', () => {
    fc.assert(
      fc.property(v1beta1, (webapp) => {
        const copy = structuredClone(webapp);
        const spoke = fromHub(frozen(webapp));
        expect(spoke.apiVersion).toBe('apps.k.example/v1alpha1');
        expect(toHub(frozen(spoke))).toStrictEqual(copy);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps a `__proto__` field a field, never a prototype', () => {
    const spec = JSON.parse(
      '{"image":"nginx","__proto__":{"polluted":true}}',
    ) as WebAppV1alpha1['spec'];
    const hub = toHub({ apiVersion: 'apps.k.example/v1alpha1', kind: 'WebApp', spec });
    expect(Object.getPrototypeOf(hub.spec)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(hub.spec.container)).toBe(Object.prototype);
    expect(Object.hasOwn(hub.spec, '__proto__')).toBe(true);
    expect(JSON.stringify(fromHub(hub).spec)).toBe(
      '{"__proto__":{"polluted":true},"image":"nginx"}',
    );
  });
});
