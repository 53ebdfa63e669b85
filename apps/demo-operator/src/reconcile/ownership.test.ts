import type { KubernetesObject, ManagedFieldsEntry } from '@k/clientset';
import { describe, expect, it } from 'vitest';
import type { WebApp } from '../generated/web-app-v1alpha1.js';
import { controllerReference } from '../names.js';
import {
  conflictMessage,
  controllerOf,
  handOverPatch,
  isControlledBy,
  unionOfFields,
} from './ownership.js';

const webapp: WebApp = {
  metadata: { name: 'hello', namespace: 'shop', uid: 'uid-1' },
  spec: { image: 'nginx' },
};

function object(metadata: KubernetesObject['metadata']): KubernetesObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hello', ...metadata } };
}

describe('isControlledBy', () => {
  it('is true only when the WebApp of this UID is the controlling owner', () => {
    expect(isControlledBy(object({ ownerReferences: [controllerReference(webapp)] }), webapp)).toBe(
      true,
    );
    // Someone else's: no owner, an owner that is not the controller, another controller.
    expect(isControlledBy(object({}), webapp)).toBe(false);
    expect(
      isControlledBy(
        object({ ownerReferences: [{ ...controllerReference(webapp), controller: false }] }),
        webapp,
      ),
    ).toBe(false);
    expect(
      isControlledBy(
        object({
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              name: 'x',
              uid: 'uid-9',
              controller: true,
            },
          ],
        }),
        webapp,
      ),
    ).toBe(false);
    // A WebApp of the same name created again has another UID: not the owner.
    expect(
      isControlledBy(
        object({ ownerReferences: [{ ...controllerReference(webapp), uid: 'uid-0' }] }),
        webapp,
      ),
    ).toBe(false);
    // A WebApp not yet stored (no UID) owns nothing, not even objects with an empty UID.
    const unsaved: WebApp = { metadata: { name: 'hello' }, spec: { image: 'nginx' } };
    expect(
      isControlledBy(object({ ownerReferences: [controllerReference(unsaved)] }), unsaved),
    ).toBe(false);
  });

  it('names the controller, or its absence, in the conflict message', () => {
    expect(conflictMessage('Service', object({}), webapp)).toBe(
      'Service hello exists and is not controlled by this WebApp (uid uid-1): it has no controller; the operator leaves it unchanged until it is gone',
    );
    const owned = object({
      ownerReferences: [
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'other', uid: 'uid-2' },
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'uid-3', controller: true },
      ],
    });
    expect(controllerOf(owned)?.name).toBe('rs');
    expect(conflictMessage('Deployment', owned, webapp)).toMatch(
      /: its controller is ReplicaSet rs \(uid uid-3\);/,
    );
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
