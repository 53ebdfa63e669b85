import { describe, expect, it } from 'vitest';
import { isApplied } from './is-applied.js';

describe('isApplied', () => {
  const desired = {
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
  });

  it('compares lists without keys position by position, with their length', () => {
    expect(isApplied({ args: ['a', 'b'] }, { args: ['a', 'b'] })).toBe(true);
    expect(isApplied({ args: ['a', 'b', 'c'] }, { args: ['a', 'b'] })).toBe(false);
    expect(isApplied({ args: ['b', 'a'] }, { args: ['a', 'b'] })).toBe(false);
  });
});

describe('isApplied with resource quantities', () => {
  const withResources = (resources: unknown) => ({
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

  it('compares other strings that look like quantities as text', () => {
    expect(isApplied({ metadata: { name: '500m' } }, { metadata: { name: '0.5' } })).toBe(false);
  });
});
