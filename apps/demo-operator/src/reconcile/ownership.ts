import type { JsonPatchOperation, KubernetesObject, ManagedFieldsEntry } from '@k/clientset';
import { controllerOf } from '@k/runtime';
import { FIELD_MANAGER } from '../names.js';

/**
 * conflictMessage says why the operator leaves `object` (a `kind` named like the WebApp) alone,
 * for the WebApp's status and Events: whoever may read the WebApp learns nothing of the object's
 * owner (another team's), which goes to the operator's log instead ({@link conflictDetail}).
 */
export function conflictMessage(kind: string, object: KubernetesObject): string {
  return `${kind} ${object.metadata?.name ?? ''} exists and is not controlled by this WebApp; the operator leaves it unchanged until it is gone`;
}

/** conflictDetail names what controls `object`, for the operator's log. */
export function conflictDetail(kind: string, object: KubernetesObject): string {
  const controller = controllerOf(object);
  const owner = controller
    ? `controlled by ${controller.kind} ${controller.name} (uid ${controller.uid})`
    : 'with no controller';
  return `${kind} ${object.metadata?.name ?? ''} ${owner}`;
}

/** isOwnCreateEntry: `entry` records the fields this operator set with a create (an `Update`, not an apply). */
function isOwnCreateEntry(entry: ManagedFieldsEntry): boolean {
  return entry.manager === FIELD_MANAGER && entry.operation === 'Update' && !entry.subresource;
}

function isOwnApplyEntry(entry: ManagedFieldsEntry): boolean {
  return entry.manager === FIELD_MANAGER && entry.operation === 'Apply' && !entry.subresource;
}

/**
 * handOverPatch is the JSON patch that makes the fields this operator set when it created
 * `object` its server-side apply's own (client-go's csaupgrade), or undefined when there is
 * nothing to hand over. The operator creates its objects with a create, which fails when the
 * name is taken (a server-side apply would take the object over), and the server records that
 * create's fields as an `Update` of `demo-operator`. An apply never removes a field another
 * entry still owns, so a field later dropped from the WebApp would stay: the patch renames that
 * entry to the apply's (`Apply`), or, once an apply's entry exists, merges its fields into it
 * and removes it. Every entry it changes is tested first, whole, with the object's UID: a patch
 * of an object that changed meanwhile fails (422) instead of touching another writer's entry.
 */
export function handOverPatch(object: KubernetesObject): JsonPatchOperation[] | undefined {
  const entries = object.metadata?.managedFields ?? [];
  const created = entries.findIndex(isOwnCreateEntry);
  if (created < 0) return undefined;
  const test = (index: number): JsonPatchOperation => ({
    op: 'test',
    path: `/metadata/managedFields/${index}`,
    value: entries[index],
  });
  const patch: JsonPatchOperation[] = [
    { op: 'test', path: '/metadata/uid', value: object.metadata?.uid },
    test(created),
  ];
  const applied = entries.findIndex(isOwnApplyEntry);
  if (applied < 0) {
    patch.push({
      op: 'replace',
      path: `/metadata/managedFields/${created}/operation`,
      value: 'Apply',
    });
    return patch;
  }
  patch.push(
    test(applied),
    {
      op: 'replace',
      path: `/metadata/managedFields/${applied}/fieldsV1`,
      value: unionOfFields(entries[applied]!.fieldsV1, entries[created]!.fieldsV1),
    },
    { op: 'remove', path: `/metadata/managedFields/${created}` },
  );
  return patch;
}

type FieldSet = Record<string, unknown>;

function isFieldSet(value: unknown): value is FieldSet {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * unionOfFields is the union of two FieldsV1 sets (tries of `f:`, `k:`, `v:`, `i:` and `.`
 * keys): every path of either. It walks with a list of its own, not by recursion, so no
 * depth of what the server sent can overflow the stack.
 */
export function unionOfFields(first: unknown, second: unknown): FieldSet {
  const union: FieldSet = {};
  const pending: [FieldSet, unknown][] = [
    [union, first],
    [union, second],
  ];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [target, source] = next;
    if (!isFieldSet(source)) continue;
    for (const [key, child] of Object.entries(source)) {
      // Every key but `.` has a prefix (`f:`…), so none is `__proto__`.
      const existing = Object.hasOwn(target, key) ? target[key] : undefined;
      const branch: FieldSet = isFieldSet(existing) ? existing : {};
      target[key] = branch;
      pending.push([branch, child]);
    }
  }
  return union;
}
