import type { Clientset } from '@k/clientset';
import type { LabelSelector } from '@k/clientset/meta/v1';
import type { ClusterRole, PolicyRule } from '@k/clientset/rbac/v1';

/** MAX_PASSES bounds the rounds of aggregation: `admin` aggregates `edit`, which aggregates `view`. */
const MAX_PASSES = 5;

/** selects reports whether a label selector matches `labels` (matchLabels and matchExpressions). */
export function selects(
  selector: LabelSelector,
  labels: Readonly<Record<string, string>>,
): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  for (const expression of selector.matchExpressions ?? []) {
    const value = labels[expression.key];
    const values = expression.values ?? [];
    switch (expression.operator) {
      case 'In':
        if (value === undefined || !values.includes(value)) return false;
        break;
      case 'NotIn':
        if (value !== undefined && values.includes(value)) return false;
        break;
      case 'Exists':
        if (value === undefined) return false;
        break;
      case 'DoesNotExist':
        if (value !== undefined) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/**
 * aggregatedRules computes, for each ClusterRole with an aggregationRule, the rules of the roles its
 * selectors match (sorted by name, duplicates dropped), as kube-controller-manager's
 * clusterrole-aggregation controller does, repeated until nothing changes (aggregated roles feed
 * others). Returns only the roles whose rules change.
 */
export function aggregatedRules(roles: readonly ClusterRole[]): Map<string, PolicyRule[]> {
  const current = new Map(roles.map((role) => [role.metadata?.name ?? '', role.rules ?? []]));
  const changed = new Map<string, PolicyRule[]>();
  const sorted = [...roles].sort((a, b) =>
    (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''),
  );
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    let progressed = false;
    for (const role of sorted) {
      const selectors = role.aggregationRule?.clusterRoleSelectors ?? [];
      const name = role.metadata?.name ?? '';
      if (selectors.length === 0) continue;
      const seen = new Set<string>();
      const rules: PolicyRule[] = [];
      for (const other of sorted) {
        const otherName = other.metadata?.name ?? '';
        if (otherName === name) continue;
        const labels = other.metadata?.labels ?? {};
        if (!selectors.some((selector) => selects(selector, labels))) continue;
        for (const rule of current.get(otherName) ?? []) {
          const key = JSON.stringify(rule);
          if (seen.has(key)) continue;
          seen.add(key);
          rules.push(rule);
        }
      }
      if (JSON.stringify(rules) !== JSON.stringify(current.get(name) ?? [])) {
        current.set(name, rules);
        changed.set(name, rules);
        progressed = true;
      }
    }
    if (!progressed) break;
  }
  return changed;
}

/**
 * aggregateClusterRoles fills the aggregated ClusterRoles (`admin`, `edit`, `view` and any other
 * with an aggregationRule) once. Without kube-controller-manager nothing else does, and `edit`,
 * the role of the `editor` user, would grant nothing.
 */
export async function aggregateClusterRoles(clientset: Clientset): Promise<void> {
  const clusterRoles = clientset.rbacV1.clusterRoles();
  const roles = (await clusterRoles.list()).items;
  const changed = aggregatedRules(roles);
  for (const role of roles) {
    const rules = changed.get(role.metadata?.name ?? '');
    if (rules !== undefined) await clusterRoles.update({ ...role, rules });
  }
}
