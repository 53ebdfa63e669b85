import { describe, expect, it } from 'vitest';
import type { FieldPath, GroupKind } from './built-in-fields.js';
import { isApplied } from './is-applied.js';

describe('isApplied', () => {
  const desired = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', labels: { app: 'web' } },
    spec: {
      replicas: 2,
      template: {
        spec: {
          containers: [{ name: 'web', image: 'nginx:1', ports: [{ containerPort: 8080 }] }],
        },
      },
    },
  };

  it('accepts a live object that has every desired field, plus fields of the server and of others', () => {
    const live = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', uid: 'u', labels: { app: 'web', team: 'a' } },
      spec: {
        replicas: 2,
        strategy: { type: 'RollingUpdate' },
        template: {
          spec: {
            containers: [
              { name: 'sidecar', image: 'envoy' },
              {
                name: 'web',
                image: 'nginx:1',
                imagePullPolicy: 'IfNotPresent',
                ports: [{ containerPort: 8080, protocol: 'TCP' }],
              },
            ],
          },
        },
      },
    };
    expect(isApplied(live, desired)).toBe(true);
  });

  it('notices a changed scalar, a missing element of a keyed list and a missing object', () => {
    const live = structuredClone(desired);
    live.spec.replicas = 5;
    expect(isApplied(live, desired)).toBe(false);
    const renamed = structuredClone(desired);
    renamed.spec.template.spec.containers[0]!.name = 'other';
    expect(isApplied(renamed, desired)).toBe(false);
    const image = structuredClone(desired);
    image.spec.template.spec.containers[0]!.image = 'nginx:2';
    expect(isApplied(image, desired)).toBe(false);
    expect(isApplied(undefined, desired)).toBe(false);
    expect(isApplied({ ...desired, spec: 'text' }, desired)).toBe(false);
  });

  it('skips fields desired as undefined, and wants those desired as null absent', () => {
    expect(isApplied({ a: 1 }, { a: 1, b: undefined })).toBe(true);
    expect(isApplied({ a: 1 }, { a: 1, b: null })).toBe(true);
    expect(isApplied({ a: 1, b: null }, { a: 1, b: null })).toBe(true);
    expect(isApplied({ a: 1, b: 2 }, { a: 1, b: null })).toBe(false);
  });

  it('compares lists without keys whole, in order, with their length', () => {
    expect(isApplied({ args: ['a', 'b'] }, { args: ['a', 'b'] })).toBe(true);
    expect(isApplied({ args: ['a', 'b', 'c'] }, { args: ['a', 'b'] })).toBe(false);
    expect(isApplied({ args: ['b', 'a'] }, { args: ['a', 'b'] })).toBe(false);
    expect(isApplied({ args: 'a' }, { args: ['a'] })).toBe(false);
    // The server stores an empty list as no list.
    expect(isApplied({}, { args: [] })).toBe(true);
    expect(isApplied({ args: ['a'] }, { args: [] })).toBe(false);
    // An empty object is not nothing (`emptyDir: {}` chooses the volume's kind).
    expect(isApplied({}, { emptyDir: {} })).toBe(false);
  });
});

describe('isApplied on keyed lists', () => {
  const deployment = (containers: unknown) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    spec: { template: { spec: { containers } } },
  });
  const service = (ports: unknown) => ({ apiVersion: 'v1', kind: 'Service', spec: { ports } });

  it('matches container ports on port and protocol, the protocol defaulting to TCP', () => {
    const wanted = deployment([{ name: 'web', ports: [{ containerPort: 53 }] }]);
    const tcp = deployment([{ name: 'web', ports: [{ containerPort: 53, protocol: 'TCP' }] }]);
    const udp = deployment([{ name: 'web', ports: [{ containerPort: 53, protocol: 'UDP' }] }]);
    expect(isApplied(tcp, wanted)).toBe(true);
    expect(isApplied(udp, wanted)).toBe(false);
    const both = deployment([
      { name: 'web', ports: [{ containerPort: 53, protocol: 'UDP' }, { containerPort: 53 }] },
    ]);
    const liveBoth = deployment([
      {
        name: 'web',
        ports: [
          { containerPort: 53, protocol: 'TCP', name: 'dns-tcp' },
          { containerPort: 53, protocol: 'UDP', name: 'dns' },
        ],
      },
    ]);
    expect(isApplied(liveBoth, both)).toBe(true);
    expect(isApplied(tcp, both)).toBe(false);
  });

  it('matches Service ports on port and protocol, in any order, other ports allowed', () => {
    const live = service([
      { name: 'metrics', port: 9090, protocol: 'TCP', targetPort: 9090 },
      { name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 },
    ]);
    expect(isApplied(live, service([{ port: 80, targetPort: 8080 }]))).toBe(true);
    expect(isApplied(live, service([{ port: 80, targetPort: 8081 }]))).toBe(false);
    expect(isApplied(live, service([{ port: 80, protocol: 'UDP', targetPort: 8080 }]))).toBe(false);
    // A Service's ports are keyed; a NetworkPolicy's are atomic.
    const policy = (ports: unknown) => ({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      spec: { ingress: [{ ports }] },
    });
    expect(isApplied(policy([{ port: 80 }, { port: 443 }]), policy([{ port: 80 }]))).toBe(false);
    expect(isApplied(policy([{ port: 80, protocol: 'TCP' }]), policy([{ port: 80 }]))).toBe(true);
  });

  it('keys env by name, volume mounts by mountPath, volumes by name, conditions by type', () => {
    const pod = (spec: unknown, status?: unknown) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      spec,
      status,
    });
    const live = pod(
      {
        containers: [
          {
            name: 'web',
            env: [
              { name: 'B', value: '2' },
              { name: 'A', value: '1' },
            ],
            volumeMounts: [
              { name: 'data', mountPath: '/data' },
              { name: 'tmp', mountPath: '/tmp' },
            ],
          },
        ],
        volumes: [
          { name: 'tmp', emptyDir: {} },
          { name: 'data', emptyDir: {} },
        ],
      },
      {
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'Initialized', status: 'True' },
        ],
      },
    );
    const wanted = pod(
      {
        containers: [
          {
            name: 'web',
            env: [{ name: 'A', value: '1' }],
            volumeMounts: [{ name: 'data', mountPath: '/data' }],
          },
        ],
        volumes: [{ name: 'data', emptyDir: {} }],
      },
      { conditions: [{ type: 'Ready', status: 'True' }] },
    );
    expect(isApplied(live, wanted)).toBe(true);
    const moved = pod({
      containers: [{ name: 'web', volumeMounts: [{ name: 'data', mountPath: '/elsewhere' }] }],
    });
    expect(isApplied(live, moved)).toBe(false);
    expect(
      isApplied(live, pod(undefined, { conditions: [{ type: 'Ready', status: 'False' }] })),
    ).toBe(false);
  });

  it('keeps a Job’s atomic conditions whole', () => {
    const job = (conditions: unknown) => ({
      apiVersion: 'batch/v1',
      kind: 'Job',
      status: { conditions },
    });
    const live = job([
      { type: 'Complete', status: 'True' },
      { type: 'SuccessCriteriaMet', status: 'True' },
    ]);
    expect(isApplied(live, job([{ type: 'Complete', status: 'True' }]))).toBe(false);
  });

  it('compares sets member by member: finalizers others added are fine', () => {
    const object = (finalizers: string[]) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { finalizers },
    });
    expect(isApplied(object(['b.example/x', 'a.example/y']), object(['a.example/y']))).toBe(true);
    expect(isApplied(object(['b.example/x']), object(['a.example/y']))).toBe(false);
  });

  it('compares a keyed list whole when its desired elements lack their keys', () => {
    const wanted = deployment([{ image: 'nginx' }]);
    expect(isApplied(deployment([{ image: 'nginx', name: 'web' }]), wanted)).toBe(true);
    expect(isApplied(deployment([{ name: 'a' }, { image: 'nginx' }]), wanted)).toBe(false);
  });
});

describe('isApplied with resource quantities', () => {
  const withResources = (resources: unknown) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    spec: { template: { spec: { containers: [{ name: 'web', resources }] } } },
  });

  it('compares requests and limits by value, as the server rewrites them', () => {
    const desired = withResources({
      requests: { cpu: '0.5', memory: '1024Mi' },
      limits: { memory: 1073741824 },
    });
    const live = withResources({
      requests: { cpu: '500m', memory: '1Gi' },
      limits: { memory: '1Gi' },
    });
    expect(isApplied(live, desired)).toBe(true);
    expect(isApplied(withResources({ requests: { cpu: '600m', memory: '1Gi' } }), desired)).toBe(
      false,
    );
  });

  it('knows the quantities of other kinds: capacity, hard, sizes of claims and volumes', () => {
    const volume = (capacity: string) => ({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      spec: { capacity: { storage: capacity } },
    });
    expect(isApplied(volume('10Gi'), volume('10240Mi'))).toBe(true);
    const quota = (pods: string) => ({
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      spec: { hard: { pods } },
    });
    expect(isApplied(quota('1k'), quota('1000'))).toBe(true);
    const claims = (storage: string) => ({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      spec: {
        volumeClaimTemplates: [{ spec: { resources: { requests: { storage } } } }],
        template: { spec: { volumes: [{ name: 'tmp', emptyDir: { sizeLimit: storage } }] } },
      },
    });
    expect(isApplied(claims('1Gi'), claims('1024Mi'))).toBe(true);
    expect(isApplied(claims('1G'), claims('1024Mi'))).toBe(false);
  });

  it('compares other strings that look like quantities as text', () => {
    const named = (name: string) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name },
      data: { size: name },
    });
    expect(isApplied(named('500m'), named('0.5'))).toBe(false);
    const quota = (pods: string) => ({
      apiVersion: 'example.com/v1',
      kind: 'ResourceQuota',
      spec: { hard: { pods } },
    });
    expect(isApplied(quota('1k'), quota('1000'))).toBe(false);
  });
});

describe('isApplied with the fields of a custom resource', () => {
  const widget = (spec: unknown) => ({ apiVersion: 'example.com/v1', kind: 'Widget', spec });

  it('asks the options first, with the path and the kind, then the built-in tables', () => {
    const asked: string[] = [];
    const options = {
      listType: (path: FieldPath, type: GroupKind) => {
        asked.push(`${type.group}/${type.kind} ${path.join('.')}`);
        return path.join('.') === 'spec.items'
          ? ({ type: 'map', keys: ['id'] } as const)
          : undefined;
      },
      isQuantity: (path: FieldPath) => (path.at(-1) === 'size' ? true : undefined),
    };
    const live = widget({
      items: [
        { id: 2, size: '2k' },
        { id: 1, size: '1Gi' },
      ],
      template: { spec: { containers: [{ name: 'b' }, { name: 'a' }] } },
    });
    const wanted = widget({
      items: [{ id: 1, size: '1024Mi' }],
      template: { spec: { containers: [{ name: 'a' }] } },
    });
    expect(isApplied(live, wanted, options)).toBe(true);
    expect(asked).toEqual([
      'example.com/Widget spec.template.spec.containers',
      'example.com/Widget spec.items',
    ]);
    expect(isApplied(live, wanted)).toBe(false);
  });

  it('lets the options turn a built-in rule off', () => {
    const live = widget({ template: { spec: { containers: [{ name: 'b' }, { name: 'a' }] } } });
    const wanted = widget({ template: { spec: { containers: [{ name: 'a' }] } } });
    expect(isApplied(live, wanted)).toBe(true);
    expect(isApplied(live, wanted, { listType: () => ({ type: 'atomic' }) })).toBe(false);
    const resources = (cpu: string) => widget({ resources: { limits: { cpu } } });
    expect(isApplied(resources('500m'), resources('0.5'))).toBe(true);
    expect(isApplied(resources('500m'), resources('0.5'), { isQuantity: () => false })).toBe(false);
  });
});

describe('isApplied on hostile input', () => {
  /** nested wraps `leaf` in `depth` levels of `{ a: … }` (or of one-element lists), without recursion. */
  function nested(depth: number, leaf: unknown, list = false): unknown {
    let value = leaf;
    for (let level = 0; level < depth; level++) value = list ? [value] : { a: value };
    return value;
  }

  it('walks 10,000 levels of objects and of lists without overflowing the stack', () => {
    expect(isApplied(nested(10_000, 'x'), nested(10_000, 'x'))).toBe(true);
    expect(isApplied(nested(10_000, 'x'), nested(10_000, 'y'))).toBe(false);
    expect(isApplied(nested(100_000, 'x', true), nested(100_000, 'x', true))).toBe(true);
    expect(isApplied(nested(100_000, 'x', true), nested(100_000, 'y', true))).toBe(false);
    expect(isApplied(nested(9_999, 'x'), nested(10_000, 'x'))).toBe(false);
  });

  it('reads only own fields: __proto__, constructor and toString are fields like others', () => {
    for (const text of ['{"__proto__": {}}', '{"constructor": {}}', '{"toString": {}}']) {
      const desired = JSON.parse(text) as unknown;
      expect(isApplied({}, desired), text).toBe(false);
      expect(isApplied(JSON.parse(text), desired), text).toBe(true);
    }
    const element = JSON.parse('[{"name": "__proto__", "image": "x"}]') as unknown;
    const pod = (containers: unknown) => ({ apiVersion: 'v1', kind: 'Pod', spec: { containers } });
    expect(isApplied(pod([]), pod(element))).toBe(false);
    expect(isApplied(pod(element), pod(element))).toBe(true);
  });

  it('indexes huge keyed lists and sets instead of searching them', () => {
    const count = 100_000;
    const env = Array.from({ length: count }, (_, index) => ({
      name: `V${index}`,
      value: `${index}`,
    }));
    const pod = (variables: unknown) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      spec: { containers: [{ name: 'web', env: variables }] },
      metadata: { finalizers: (variables as unknown[]).map((_, index) => `f/${index}`) },
    });
    expect(isApplied(pod([...env].reverse()), pod(env))).toBe(true);
    expect(isApplied(pod(env.slice(1)), pod(env.slice(0, -1)))).toBe(false);
  });

  it('ends on an object that contains itself when live and desired are the same', () => {
    const loop: Record<string, unknown> = { name: 'loop' };
    loop.self = loop;
    expect(isApplied(loop, loop)).toBe(true);
  });
});
