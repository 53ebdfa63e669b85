import type { KubernetesObject } from '@k/clientset';
import { describe, expect, it } from 'vitest';
import { controllerOf, isControlledBy } from './ownership.js';

const owner = { metadata: { name: 'web', uid: 'u-1' } } satisfies KubernetesObject;

function child(references: NonNullable<KubernetesObject['metadata']>['ownerReferences']) {
  return { metadata: { name: 'web', ownerReferences: references } } satisfies KubernetesObject;
}

describe('isControlledBy', () => {
  it('is true only for the controlling owner reference with the owner’s UID', () => {
    const reference = { apiVersion: 'v1', kind: 'ConfigMap', name: 'web', uid: 'u-1' };
    expect(isControlledBy(child([{ ...reference, controller: true }]), owner)).toBe(true);
    // Owned but not controlled, controlled by the same name under another UID, or by nobody.
    expect(isControlledBy(child([reference]), owner)).toBe(false);
    expect(isControlledBy(child([{ ...reference, uid: 'u-2', controller: true }]), owner)).toBe(
      false,
    );
    expect(isControlledBy(child(undefined), owner)).toBe(false);
    // An owner without a UID (not read from the server) controls nothing.
    expect(
      isControlledBy(child([{ ...reference, uid: '', controller: true }]), { metadata: {} }),
    ).toBe(false);
    expect(
      controllerOf(child([reference, { ...reference, uid: 'u-3', controller: true }]))?.uid,
    ).toBe('u-3');
  });
});
