import { describe, expect, it } from 'vitest';
import { resourceName, stuckReport, type RemainingObject } from './namespace-cleanup.js';

const held: RemainingObject = {
  resource: 'configmaps',
  name: 'held',
  deletionTimestamp: '2026-12-07T16:30:00Z',
  finalizers: ['example.com/hold'],
};

describe('resourceName', () => {
  it('names core resources by plural and others by plural.group', () => {
    expect(resourceName({ group: '', plural: 'configmaps' })).toBe('configmaps');
    expect(resourceName({ group: 'example.com', plural: 'widgets' })).toBe('widgets.example.com');
  });
});

describe('stuckReport', () => {
  it('names each object with its deletionTimestamp and finalizers, the conditions, and the controller to suspect', () => {
    const report = stuckReport({
      namespace: 'test-1234abcd',
      timeoutMs: 3000,
      controllerManager: true,
      remaining: [
        held,
        {
          resource: 'widgets.example.com',
          name: 'w',
          deletionTimestamp: undefined,
          finalizers: [],
        },
      ],
      object: {
        metadata: { name: 'test-1234abcd' },
        spec: { finalizers: ['kubernetes'] },
        status: {
          phase: 'Terminating',
          conditions: [
            {
              type: 'NamespaceDeletionDiscoveryFailure',
              status: 'False',
              reason: 'ResourcesDiscovered',
            },
            {
              type: 'NamespaceContentRemaining',
              status: 'True',
              reason: 'SomeResourcesRemain',
              message: 'Some resources are remaining: configmaps. has 1 resource instances',
            },
            {
              type: 'NamespaceFinalizersRemaining',
              status: 'True',
              reason: 'SomeFinalizersRemain',
              message:
                'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
            },
          ],
        },
      },
    });
    expect(report.split('\n')).toEqual([
      'namespace test-1234abcd was still there after 3000 ms of waiting for its deletion',
      'objects left in it (2):',
      '  configmaps/held (deletionTimestamp 2026-12-07T16:30:00Z; finalizers example.com/hold)',
      '  widgets.example.com/w (no deletionTimestamp; no finalizers)',
      'namespace conditions:',
      '  NamespaceContentRemaining=True (SomeResourcesRemain): Some resources are remaining: configmaps. has 1 resource instances',
      '  NamespaceFinalizersRemaining=True (SomeFinalizersRemain): Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
      "the namespace's own finalizers: kubernetes",
      'is the controller that owns finalizer example.com/hold still running? (stop it after the namespace is deleted, or remove the finalizers)',
    ]);
  });

  it('says envtest emptied the namespace itself when no kube-controller-manager runs, and bounds the list', () => {
    const many = Array.from({ length: 25 }, (_, index) => ({ ...held, name: `held-${index}` }));
    const report = stuckReport({
      namespace: 'n',
      timeoutMs: 10,
      controllerManager: false,
      remaining: many,
      object: { metadata: { name: 'n' } },
    });
    expect(report).toContain('objects left in it (25):');
    expect(report).toContain('  configmaps/held-19 (');
    expect(report).not.toContain('held-20');
    expect(report).toContain('  … and 5 more');
    expect(report).toContain('kube-controller-manager does not run here');
  });
});
