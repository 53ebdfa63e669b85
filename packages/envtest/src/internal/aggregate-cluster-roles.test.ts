import type { ClusterRole } from '@k/clientset/rbac/v1';
import { describe, expect, it } from 'vitest';
import { aggregatedRules, selects } from './aggregate-cluster-roles.js';

const read = { apiGroups: [''], resources: ['pods'], verbs: ['get'] };
const write = { apiGroups: [''], resources: ['configmaps'], verbs: ['create'] };

function role(
  name: string,
  options: Partial<ClusterRole> & { labels?: Record<string, string> },
): ClusterRole {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name, ...(options.labels ? { labels: options.labels } : {}) },
    ...(options.rules ? { rules: options.rules } : {}),
    ...(options.aggregationRule ? { aggregationRule: options.aggregationRule } : {}),
  };
}

const toView = { matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } };
const toEdit = { matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' } };

describe('aggregatedRules', () => {
  it('fills aggregated roles from the roles their selectors match, through aggregated roles too', () => {
    const changed = aggregatedRules([
      role('view', {
        aggregationRule: { clusterRoleSelectors: [toView] },
        labels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' },
      }),
      role('edit', { aggregationRule: { clusterRoleSelectors: [toEdit] } }),
      role('system:aggregate-to-view', { rules: [read], labels: toView.matchLabels }),
      role('system:aggregate-to-edit', { rules: [write, read], labels: toEdit.matchLabels }),
      role('unrelated', { rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] }),
    ]);
    expect(changed.get('view')).toEqual([read]);
    // edit gets aggregate-to-edit's rules and, through view, view's (duplicates dropped).
    expect(changed.get('edit')).toEqual([write, read]);
    expect(changed.has('unrelated')).toBe(false);
  });

  it('leaves roles that are already right alone', () => {
    expect(
      aggregatedRules([
        role('view', { aggregationRule: { clusterRoleSelectors: [toView] }, rules: [read] }),
        role('reader', { rules: [read], labels: toView.matchLabels }),
      ]).size,
    ).toBe(0);
  });
});

describe('selects', () => {
  it('matches labels and expressions', () => {
    const labels = { a: '1', b: '2' };
    expect(selects({ matchLabels: { a: '1' } }, labels)).toBe(true);
    expect(selects({ matchLabels: { a: '2' } }, labels)).toBe(false);
    expect(
      selects({ matchExpressions: [{ key: 'b', operator: 'In', values: ['2', '3'] }] }, labels),
    ).toBe(true);
    expect(
      selects({ matchExpressions: [{ key: 'b', operator: 'NotIn', values: ['2'] }] }, labels),
    ).toBe(false);
    expect(selects({ matchExpressions: [{ key: 'c', operator: 'Exists' }] }, labels)).toBe(false);
    expect(selects({ matchExpressions: [{ key: 'c', operator: 'DoesNotExist' }] }, labels)).toBe(
      true,
    );
    expect(selects({ matchExpressions: [{ key: 'a', operator: 'Bogus' }] }, labels)).toBe(false);
  });
});
