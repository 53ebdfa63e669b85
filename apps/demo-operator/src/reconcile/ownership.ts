import type {
  JsonPatchOperation,
  KubernetesObject,
  ManagedFieldsEntry,
  OwnerReference,
} from '@k/clientset';
import type { WebApp } from '../generated/web-app-v1alpha1.js';
import { FIELD_MANAGER } from '../names.js';

/** controllerOf is the owner reference of `object` marked `controller: true`, if any. */
export function controllerOf(object: KubernetesObject): OwnerReference | undefined {
  return object.metadata?.ownerReferences?.find((reference) => reference.controller === true);
}

/**
 * isControlledBy is true when `webapp` is the controlling owner of `object`, by UID: a WebApp
 * deleted and created again under the same name is another owner, and an object with no
 * controller (someone else's, or one orphaned by `--cascade=orphan`) belongs to nobody here.
 */
export function isControlledBy(object: KubernetesObject, webapp: WebApp): boolean {
  const uid = webapp.metadata?.uid;
  return uid !== undefined && uid !== '' && controllerOf(object)?.uid === uid;
}

/** conflictMessage says why the operator leaves `object` (a `kind` named like `webapp`) alone. */
export function conflictMessage(kind: string, object: KubernetesObject, webapp: WebApp): string {
  const controller = controllerOf(object);
  const name = object.metadata?.name ?? '';
  const owner = controller
    ? `its controller is ${controller.kind} ${controller.name} (uid ${controller.uid})`
    : 'it has no controller';
  return `${kind} ${name} exists and is not controlled by this WebApp (uid ${webapp.metadata?.uid ?? ''}): ${owner}; the operator leaves it unchanged until it is gone`;
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
