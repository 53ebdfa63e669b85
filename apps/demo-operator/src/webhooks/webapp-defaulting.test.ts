import { describe, expect, it } from 'vitest';
import type { WebApp } from '../generated/web-app-v1beta1.js';
import { defaultMemoryLimit } from './webapp-defaulting.js';

type Resources = WebApp['spec']['container']['resources'];

function webApp(resources?: Resources): WebApp {
  return {
    apiVersion: 'apps.k.example/v1beta1',
    kind: 'WebApp',
    metadata: { name: 'hello' },
    spec: { container: { image: 'nginx', ...(resources ? { resources } : {}) } },
  };
}

describe('defaultMemoryLimit (the rule of the defaulting webhook)', () => {
  it('limits memory to the request when only the request is set, keeping the other limits', () => {
    const webapp = webApp({ requests: { memory: '64Mi', cpu: '100m' }, limits: { cpu: 1 } });
    expect(defaultMemoryLimit(webapp)).toBe(true);
    expect(webapp.spec.container.resources).toEqual({
      requests: { memory: '64Mi', cpu: '100m' },
      limits: { cpu: 1, memory: '64Mi' },
    });
  });

  it('adds the limits when there are none', () => {
    const webapp = webApp({ requests: { memory: 1048576 } });
    expect(defaultMemoryLimit(webapp)).toBe(true);
    expect(webapp.spec.container.resources?.limits).toEqual({ memory: 1048576 });
  });

  it('changes nothing without a memory request, or with a memory limit already', () => {
    const cases: Resources[] = [
      undefined,
      {},
      { requests: { cpu: '1' } },
      { requests: { memory: '1Gi' }, limits: { memory: '2Gi' } },
    ];
    for (const resources of cases) {
      const webapp = webApp(resources);
      const before = structuredClone(webapp);
      expect(defaultMemoryLimit(webapp)).toBe(false);
      expect(webapp).toEqual(before);
    }
  });

  it('keeps a `__proto__` limit a field (objects parsed from JSON), never a prototype', () => {
    const webapp = webApp(
      JSON.parse(
        '{"requests":{"memory":"1Gi"},"limits":{"__proto__":{"memory":"9Gi"}}}',
      ) as Resources,
    );
    expect(defaultMemoryLimit(webapp)).toBe(true);
    const limits = webapp.spec.container.resources!.limits!;
    expect(Object.getPrototypeOf(limits)).toBe(Object.prototype);
    expect(JSON.stringify(limits)).toBe('{"__proto__":{"memory":"9Gi"},"memory":"1Gi"}');
  });
});
