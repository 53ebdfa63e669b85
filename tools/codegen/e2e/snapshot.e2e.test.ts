import { KUBERNETES_VERSION } from '@k/testenv';
import { controlPlane } from '@k/testenv/vitest';
import { describe, expect, it } from 'vitest';
import type { APIGroupDiscoveryList } from '../src/openapi/discovery-types.js';
import { fetchSnapshot } from '../src/snapshot/fetch-snapshot.js';
import { readSnapshot } from '../src/snapshot/snapshot-files.js';
import { SNAPSHOT_FILES } from '../src/snapshot/snapshot-layout.js';
import { stableJson } from '@k/codegen/emit';

/** keepGroups drops the groups the committed snapshot does not have (CRDs other suites install meanwhile). */
function keepGroups(value: unknown, names: Set<string>): unknown {
  const list = value as APIGroupDiscoveryList & { groups?: { name: string }[] };
  if (Array.isArray(list.items)) {
    return { ...list, items: list.items.filter((item) => names.has(item.metadata?.name ?? '')) };
  }
  if (Array.isArray(list.groups)) {
    return { ...list, groups: list.groups.filter((group) => names.has(group.name)) };
  }
  return value;
}

describe('the committed snapshot', () => {
  it('is what the pinned control plane serves (refetching changes nothing)', async () => {
    const committed = await readSnapshot(KUBERNETES_VERSION);
    const fetched = await fetchSnapshot({ kubeconfigPath: controlPlane().kubeconfigPath });
    expect(fetched.version).toBe(KUBERNETES_VERSION);
    const groups = new Set(
      (committed.files.get(SNAPSHOT_FILES.aggregatedGroups) as APIGroupDiscoveryList).items.map(
        (item) => item.metadata?.name ?? '',
      ),
    );
    const differing: string[] = [];
    for (const [path, value] of committed.files) {
      const current = fetched.files.get(path);
      const comparable =
        path === SNAPSHOT_FILES.aggregatedGroups || path === SNAPSHOT_FILES.legacyGroups
          ? keepGroups(current, groups)
          : current;
      if (current === undefined || stableJson(comparable) !== stableJson(value))
        differing.push(path);
    }
    expect(differing, 'refresh the snapshot with `npm run codegen -- --refresh`').toEqual([]);
  });
});
