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

  it('walks a tree 10,000 levels deep (free-form data of a custom resource) without recursing', () => {
    // Built by a loop and checked by one: a recursive toEqual would overflow the stack itself.
    const leaf = 'registry.example.com/storefront/web:1.27.3';
    let tree: unknown = { image: leaf, replicas: 3 };
    for (let level = 0; level < 10_000; level += 1) {
      tree = level % 2 === 0 ? [tree, `level-${level}-of-the-tree`] : { nested: tree, level };
    }
    const interner = new StringInterner();
    expect(interner.internTree(tree)).toBe(tree);
    let node: unknown = tree;
    let unchanged = true;
    for (let level = 9_999; level >= 0; level -= 1) {
      if (level % 2 === 0) {
        const [inner, name] = node as [unknown, string];
        unchanged &&= (node as unknown[]).length === 2 && name === `level-${level}-of-the-tree`;
        node = inner;
      } else {
        const { nested, level: written } = node as { nested: unknown; level: number };
        unchanged &&= written === level;
        node = nested;
      }
    }
    expect(unchanged).toBe(true);
    expect(node).toEqual({ image: leaf, replicas: 3 });
  });
});
