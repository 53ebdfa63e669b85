import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RuntimeError } from '../errors.js';
import {
  addFinalizer,
  addFinalizerPatch,
  containsFinalizer,
  removeFinalizer,
  removeFinalizerPatch,
  type FinalizedObject,
} from './finalizers.js';

// The patches' effect on the real server (concurrent writers, a deletion that completes) is in
// e2e/finalizers.e2e.test.ts; here, what each helper builds.

describe('containsFinalizer, addFinalizer, removeFinalizer', () => {
  it('add appends once and never touches the array it was given', () => {
    const finalizers = ['a.example/one'];
    const object: FinalizedObject = { metadata: { finalizers } };
    expect(addFinalizer(object, 'b.example/two')).toBe(true);
    expect(addFinalizer(object, 'b.example/two')).toBe(false);
    expect(object.metadata?.finalizers).toEqual(['a.example/one', 'b.example/two']);
    expect(finalizers).toEqual(['a.example/one']);
    const bare: FinalizedObject = {};
    expect(addFinalizer(bare, 'a.example/one')).toBe(true);
    expect(containsFinalizer(bare, 'a.example/one')).toBe(true);
  });

  it('remove drops every occurrence and says whether there was one', () => {
    const object: FinalizedObject = { metadata: { finalizers: ['x/a', 'x/b', 'x/a'] } };
    expect(removeFinalizer(object, 'x/a')).toBe(true);
    expect(object.metadata?.finalizers).toEqual(['x/b']);
    expect(removeFinalizer(object, 'x/a')).toBe(false);
    expect(removeFinalizer({}, 'x/a')).toBe(false);
    expect(containsFinalizer({}, 'x/a')).toBe(false);
  });

  it('agree with a set model over any sequence (fast-check)', () => {
    const names = fc.constantFrom('x/a', 'x/b', 'x/c');
    const step = fc.record({ add: fc.boolean(), name: names });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        const object: FinalizedObject = {};
        const model = new Set<string>();
        for (const { add, name } of steps) {
          const had = model.has(name);
          if (add) {
            expect(addFinalizer(object, name)).toBe(!had);
            model.add(name);
          } else {
            expect(removeFinalizer(object, name)).toBe(had);
            model.delete(name);
          }
          expect(new Set(object.metadata?.finalizers ?? [])).toEqual(model);
          expect(object.metadata?.finalizers?.length ?? 0).toBe(model.size);
        }
      }),
    );
  });
});

describe('addFinalizerPatch and removeFinalizerPatch', () => {
  it('add tests the finalizers the object shows, then appends', () => {
    expect(
      addFinalizerPatch({ metadata: { finalizers: ['x/a'], resourceVersion: '9' } }, 'x/b'),
    ).toEqual([
      { op: 'test', path: '/metadata/finalizers', value: ['x/a'] },
      { op: 'add', path: '/metadata/finalizers/-', value: 'x/b' },
    ]);
  });

  it('add to an object without finalizers tests its resourceVersion, which it needs', () => {
    expect(addFinalizerPatch({ metadata: { name: 'c', resourceVersion: '9' } }, 'x/b')).toEqual([
      { op: 'test', path: '/metadata/resourceVersion', value: '9' },
      { op: 'add', path: '/metadata/finalizers', value: ['x/b'] },
    ]);
    const error = (() => {
      try {
        addFinalizerPatch({ metadata: { name: 'c' } }, 'x/b');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(RuntimeError);
    expect(error).toMatchObject({ code: 'ERR_RUNTIME_INVALID_ARGUMENT' });
    expect((error as Error).message).toContain('c');
  });

  it('remove tests the finalizers, then writes them without the one removed', () => {
    expect(removeFinalizerPatch({ metadata: { finalizers: ['x/a', 'x/b'] } }, 'x/a')).toEqual([
      { op: 'test', path: '/metadata/finalizers', value: ['x/a', 'x/b'] },
      { op: 'replace', path: '/metadata/finalizers', value: ['x/b'] },
    ]);
  });

  it('are undefined when there is nothing to do', () => {
    expect(addFinalizerPatch({ metadata: { finalizers: ['x/a'] } }, 'x/a')).toBeUndefined();
    expect(removeFinalizerPatch({ metadata: { finalizers: ['x/a'] } }, 'x/b')).toBeUndefined();
    expect(removeFinalizerPatch({}, 'x/b')).toBeUndefined();
  });
});
