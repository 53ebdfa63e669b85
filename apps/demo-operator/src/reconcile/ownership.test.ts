import type { KubernetesObject, ManagedFieldsEntry } from '@k/clientset';
import { describe, expect, it } from 'vitest';
import { conflictDetail, conflictMessage, handOverPatch, unionOfFields } from './ownership.js';

function object(metadata: KubernetesObject['metadata']): KubernetesObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hello', ...metadata } };
}

describe('conflict messages', () => {
  it('tell the WebApp nothing of the other owner, and the log who it is', () => {
    expect(conflictMessage('Service', object({}))).toBe(
      'Service hello exists and is not controlled by this WebApp; the operator leaves it unchanged until it is gone',
    );
    const owned = object({
      ownerReferences: [
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'other', uid: 'uid-2' },
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'uid-3', controller: true },
      ],
    });
    expect(conflictMessage('Deployment', owned)).not.toMatch(/rs|uid-3/);
    expect(conflictDetail('Deployment', owned)).toBe(
      'Deployment hello controlled by ReplicaSet rs (uid uid-3)',
    );
    expect(conflictDetail('Service', object({}))).toBe('Service hello with no controller');
  });
});

const createEntry: ManagedFieldsEntry = {
  manager: 'demo-operator',
  operation: 'Update',
  apiVersion: 'apps/v1',
  time: '2026-12-01T00:00:00Z',
  fieldsType: 'FieldsV1',
  fieldsV1: { 'f:spec': { 'f:replicas': {}, 'f:template': { 'f:spec': { 'f:env': {} } } } },
};
const statusEntry: ManagedFieldsEntry = {
  manager: 'kube-controller-manager',
  operation: 'Update',
  apiVersion: 'apps/v1',
  time: '2026-12-01T00:00:01Z',
  fieldsType: 'FieldsV1',
  fieldsV1: { 'f:status': { 'f:replicas': {} } },
  subresource: 'status',
};

describe('handOverPatch', () => {
  it('renames the entry of the operator’s create to its apply’s, after testing it and the UID', () => {
    const live = object({ uid: 'obj-1', managedFields: [createEntry, statusEntry] });
    expect(handOverPatch(live)).toEqual([
      { op: 'test', path: '/metadata/uid', value: 'obj-1' },
      { op: 'test', path: '/metadata/managedFields/0', value: createEntry },
      { op: 'replace', path: '/metadata/managedFields/0/operation', value: 'Apply' },
    ]);
  });

  it('merges the create’s fields into an apply’s entry that exists already, and removes it', () => {
    const applyEntry: ManagedFieldsEntry = {
      manager: 'demo-operator',
      operation: 'Apply',
      apiVersion: 'apps/v1',
      time: '2026-12-01T00:00:02Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:spec': { 'f:replicas': {}, 'f:paused': {} } },
    };
    const live = object({ uid: 'obj-1', managedFields: [applyEntry, createEntry, statusEntry] });
    expect(handOverPatch(live)).toEqual([
      { op: 'test', path: '/metadata/uid', value: 'obj-1' },
      { op: 'test', path: '/metadata/managedFields/1', value: createEntry },
      { op: 'test', path: '/metadata/managedFields/0', value: applyEntry },
      {
        op: 'replace',
        path: '/metadata/managedFields/0/fieldsV1',
        value: {
          'f:spec': {
            'f:replicas': {},
            'f:paused': {},
            'f:template': { 'f:spec': { 'f:env': {} } },
          },
        },
      },
      { op: 'remove', path: '/metadata/managedFields/1' },
    ]);
  });

  it('has nothing to do without a create entry of the operator (another manager’s or a subresource’s are not its)', () => {
    expect(handOverPatch(object({ uid: 'obj-1' }))).toBeUndefined();
    expect(
      handOverPatch(
        object({
          managedFields: [
            statusEntry,
            { ...createEntry, manager: 'kubectl' },
            { ...createEntry, subresource: 'status' },
          ],
        }),
      ),
    ).toBeUndefined();
  });
});

describe('unionOfFields', () => {
  it('holds every path of both sets', () => {
    expect(
      unionOfFields(
        { 'f:a': { '.': {}, 'f:b': {} }, 'k:{"name":"x"}': { 'f:c': {} } },
        { 'f:a': { 'f:d': {} }, 'f:e': {} },
      ),
    ).toEqual({
      'f:a': { '.': {}, 'f:b': {}, 'f:d': {} },
      'k:{"name":"x"}': { 'f:c': {} },
      'f:e': {},
    });
    expect(unionOfFields(undefined, { 'f:a': {} })).toEqual({ 'f:a': {} });
  });

  it('walks sets of any depth without recursion', () => {
    const deep: Record<string, unknown> = {};
    let cursor = deep;
    for (let level = 0; level < 20_000; level++) {
      const next: Record<string, unknown> = {};
      cursor['f:x'] = next;
      cursor = next;
    }
    let depth = 0;
    for (
      let node = unionOfFields(deep, { 'f:y': {} }) as Record<string, unknown> | undefined;
      node && node['f:x'];
      node = node['f:x'] as Record<string, unknown>
    ) {
      depth++;
    }
    expect(depth).toBe(20_000);
  });
});
