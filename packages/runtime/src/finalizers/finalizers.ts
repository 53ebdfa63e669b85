import type { JsonPatchOperation } from '@k/clientset';
import { RuntimeError } from '../errors.js';

/** FinalizedObject is what the finalizer helpers read and change: an object's metadata. */
export interface FinalizedObject {
  metadata?:
    | {
        name?: string | undefined;
        resourceVersion?: string | undefined;
        finalizers?: string[] | undefined;
      }
    | undefined;
}

/** containsFinalizer is true when `object` lists `finalizer` (controller-runtime's `controllerutil.ContainsFinalizer`). */
export function containsFinalizer(object: FinalizedObject, finalizer: string): boolean {
  return object.metadata?.finalizers?.includes(finalizer) ?? false;
}

/**
 * addFinalizer appends `finalizer` to `object`'s finalizers unless it is there; true when it
 * added it (`controllerutil.AddFinalizer`). It changes `object` (a new finalizers array, never
 * the old one pushed into): call it on your own copy, not on an informer's cached object.
 */
export function addFinalizer(object: FinalizedObject, finalizer: string): boolean {
  if (containsFinalizer(object, finalizer)) return false;
  object.metadata ??= {};
  object.metadata.finalizers = [...(object.metadata.finalizers ?? []), finalizer];
  return true;
}

/**
 * removeFinalizer removes every occurrence of `finalizer` from `object`'s finalizers; true when
 * there was one (`controllerutil.RemoveFinalizer`). Like {@link addFinalizer}, it changes `object`.
 */
export function removeFinalizer(object: FinalizedObject, finalizer: string): boolean {
  if (!containsFinalizer(object, finalizer)) return false;
  object.metadata!.finalizers = object.metadata!.finalizers!.filter((each) => each !== finalizer);
  return true;
}

const FINALIZERS_PATH = '/metadata/finalizers';

/**
 * addFinalizerPatch is the JSON patch that adds `finalizer` to the object as `object` shows it,
 * or undefined when it is there already. The patch tests first that the server still has the
 * same finalizers (or, when there are none, the same resourceVersion, as RFC 6902 cannot test
 * that a member is absent), so a writer that added or removed another finalizer meanwhile makes
 * it fail (422) instead of being overwritten: read the object again and build the patch anew.
 */
export function addFinalizerPatch(
  object: FinalizedObject,
  finalizer: string,
): JsonPatchOperation[] | undefined {
  if (containsFinalizer(object, finalizer)) return undefined;
  const finalizers = object.metadata?.finalizers ?? [];
  if (finalizers.length > 0) {
    return [
      { op: 'test', path: FINALIZERS_PATH, value: finalizers },
      { op: 'add', path: `${FINALIZERS_PATH}/-`, value: finalizer },
    ];
  }
  return [
    { op: 'test', path: '/metadata/resourceVersion', value: resourceVersionOf(object) },
    { op: 'add', path: FINALIZERS_PATH, value: [finalizer] },
  ];
}

/**
 * removeFinalizerPatch is the JSON patch that removes `finalizer` from the object as `object`
 * shows it, or undefined when it is not there; guarded like {@link addFinalizerPatch} by a test
 * of the finalizers the server has.
 */
export function removeFinalizerPatch(
  object: FinalizedObject,
  finalizer: string,
): JsonPatchOperation[] | undefined {
  if (!containsFinalizer(object, finalizer)) return undefined;
  const finalizers = object.metadata!.finalizers!;
  return [
    { op: 'test', path: FINALIZERS_PATH, value: finalizers },
    {
      op: 'replace',
      path: FINALIZERS_PATH,
      value: finalizers.filter((each) => each !== finalizer),
    },
  ];
}

function resourceVersionOf(object: FinalizedObject): string {
  const resourceVersion = object.metadata?.resourceVersion;
  if (!resourceVersion) {
    throw new RuntimeError(
      'ERR_RUNTIME_INVALID_ARGUMENT',
      `cannot guard a finalizer patch of ${object.metadata?.name ?? 'an object'}: it has no metadata.resourceVersion (read it from the server first)`,
    );
  }
  return resourceVersion;
}
