import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StringInterner } from './string-interner.js';

describe('StringInterner', () => {
  it('leaves every tree equal to what it was and returns the same root, for any JSON', () => {
    const interner = new StringInterner(8);
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const parsed: unknown = JSON.parse(JSON.stringify(value));
        const before = structuredClone(parsed);
        expect(interner.internTree(parsed)).toBe(parsed);
        expect(parsed).toEqual(before);
      }),
    );
  });

  it('keeps the values of a Pod-like tree, in objects and in arrays, across restarts of its table', () => {
    const interner = new StringInterner(2);
    const pods = Array.from({ length: 5 }, (_, index) => ({
      metadata: { name: `web-${index}-7d9f8c6b5`, labels: { app: 'storefront-web-frontend' } },
      spec: {
        containers: [
          { image: 'registry.example.com/storefront/web:1.27.3', args: ['--listen=:8080'] },
        ],
        tolerations: [{ key: 'node.kubernetes.io/not-ready' }],
      },
    }));
    const expected = structuredClone(pods);
    for (const pod of pods) interner.internTree(pod);
    expect(pods).toEqual(expected);
  });

  it('returns an equal string from intern, and leaves non-objects alone', () => {
    const interner = new StringInterner();
    const image = ['registry.example.com', 'storefront/web:1.27.3'].join('/');
    expect(interner.intern(image)).toBe('registry.example.com/storefront/web:1.27.3');
    expect(interner.intern(`${image}`)).toBe(image);
    expect(interner.internTree('x'.repeat(20))).toBe('x'.repeat(20));
    expect(interner.internTree(null)).toBeNull();
    expect(interner.internTree(42)).toBe(42);
  });
});
