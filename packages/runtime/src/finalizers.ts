// @k/runtime/finalizers: controller-runtime's controllerutil finalizer helpers and guarded
// patches against the server, for code outside a controller (in a controller: `withFinalizer`).
export {
  addFinalizer,
  addFinalizerPatch,
  containsFinalizer,
  removeFinalizer,
  removeFinalizerPatch,
} from './finalizers/finalizers.js';
export type { FinalizedObject } from './finalizers/finalizers.js';
export { addFinalizerOnServer, removeFinalizerOnServer } from './finalizers/patch-finalizers.js';
export type { FinalizerClient, FinalizerPatchOptions } from './finalizers/patch-finalizers.js';
