import type { KubernetesObject, OwnerReference } from '@k/clientset';
import { describe, expect, it } from 'vitest';
import { nameConflicts } from './webapp-validation.js';

function controlledBy(reference?: Partial<OwnerReference>): KubernetesObject {
  return {
    metadata: {
      name: 'hello',
      ownerReferences: reference
        ? [
            {
              apiVersion: 'apps.k.example/v1beta1',
              kind: 'WebApp',
              name: 'hello',
              uid: 'u1',
              controller: true,
              ...reference,
            },
          ]
        : [],
    },
  };
}

describe('nameConflicts (the rule of the validating webhook)', () => {
  it('finds none when nothing has the name', () => {
    expect(nameConflicts('hello', [])).toEqual([]);
  });

  it('refuses the name of a Deployment or Service no WebApp controls, one cause each, on metadata.name', () => {
    const causes = nameConflicts('hello', [
      { kind: 'Deployment', object: controlledBy() },
      { kind: 'Service', object: controlledBy({ apiVersion: 'apps/v1', kind: 'ReplicaSet' }) },
    ]);
    expect(causes.map(({ field, reason }) => `${field} ${reason}`)).toEqual([
      'metadata.name FieldValueDuplicate',
      'metadata.name FieldValueDuplicate',
    ]);
    expect(causes[0]?.message).toMatch(/^a Deployment named hello already exists/);
    expect(causes[1]?.message).toMatch(/^a Service named hello already exists/);
  });

  it('refuses when a WebApp owns it without controlling it, or another WebApp (of another name or group) controls it', () => {
    for (const object of [
      controlledBy({ controller: false }),
      controlledBy({ name: 'other' }),
      controlledBy({ apiVersion: 'other.example/v1' }),
    ]) {
      expect(nameConflicts('hello', [{ kind: 'Service', object }])).toHaveLength(1);
    }
  });

  it('lets a WebApp of the name control it (one being deleted, its dependents not collected yet), in either version', () => {
    expect(nameConflicts('hello', [{ kind: 'Deployment', object: controlledBy({}) }])).toEqual([]);
    expect(
      nameConflicts('hello', [
        { kind: 'Service', object: controlledBy({ apiVersion: 'apps.k.example/v1alpha1' }) },
      ]),
    ).toEqual([]);
  });

  it('never names who controls the object', () => {
    const [cause] = nameConflicts('hello', [
      {
        kind: 'Deployment',
        object: controlledBy({ apiVersion: 'team-b.example/v1', kind: 'Secretive', name: 'hello' }),
      },
    ]);
    expect(cause?.message).not.toMatch(/team-b|Secretive/);
  });
});
