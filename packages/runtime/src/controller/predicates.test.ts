import type { KubernetesObject } from '@k/clientset';
import { describe, expect, it } from 'vitest';
import { generationChanged, labelsChanged, resourceVersionChanged } from './predicates.js';
import { controllerOwnerRequests, requestFromKey, requestKey } from './request.js';

const object = (metadata: KubernetesObject['metadata']): KubernetesObject => ({ metadata });

describe('predicates', () => {
  it('pass only the updates that change what they watch', () => {
    const before = object({ generation: 1, labels: { a: '1' }, resourceVersion: '5' });
    expect(generationChanged.update!(before, object({ ...before.metadata, generation: 2 }))).toBe(
      true,
    );
    expect(
      generationChanged.update!(before, object({ ...before.metadata, resourceVersion: '6' })),
    ).toBe(false);
    expect(labelsChanged.update!(before, object({ ...before.metadata, labels: { a: '2' } }))).toBe(
      true,
    );
    expect(labelsChanged.update!(before, object({ ...before.metadata, labels: { a: '1' } }))).toBe(
      false,
    );
    expect(resourceVersionChanged.update!(before, before)).toBe(false);
  });
});

describe('requests', () => {
  it('round-trip through workqueue keys and map owned objects to their controller', () => {
    expect(requestFromKey(requestKey({ namespace: 'ns', name: 'a' }))).toEqual({
      namespace: 'ns',
      name: 'a',
    });
    expect(requestFromKey('cluster-wide')).toEqual({ namespace: '', name: 'cluster-wide' });
    const owned = object({
      namespace: 'ns',
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'not-controller', uid: '1' },
        { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: '2', controller: true },
      ],
    });
    const deployment = { group: 'apps', kind: 'Deployment', namespaced: true };
    expect(controllerOwnerRequests(owned, deployment)).toEqual([{ namespace: 'ns', name: 'web' }]);
    expect(controllerOwnerRequests(owned, { ...deployment, group: '' })).toEqual([]);
  });

  it('map a namespaced child of a cluster-scoped owner to the owner without a namespace', () => {
    const quota = object({
      namespace: 'team-alpha',
      ownerReferences: [
        {
          apiVersion: 'example.com/v1',
          kind: 'TeamNamespace',
          name: 'alpha',
          uid: '3',
          controller: true,
        },
      ],
    });
    const owner = { group: 'example.com', kind: 'TeamNamespace', namespaced: false };
    const requests = controllerOwnerRequests(quota, owner);
    expect(requests).toEqual([{ namespace: '', name: 'alpha' }]);
    expect(requests.map(requestKey)).toEqual(['alpha']);
  });
});
