import type { KubernetesObject } from '@k/clientset';
import type { Reconciler } from '../controller/controller.js';
import { containsFinalizer } from './finalizers.js';
import {
  addFinalizerOnServer,
  removeFinalizerOnServer,
  type FinalizerClient,
} from './patch-finalizers.js';

/** FinalizerHandlers are the two halves of a reconciler with a finalizer (kube-rs's `Event::Apply` and `Event::Cleanup`). */
export interface FinalizerHandlers<T, C> {
  /** apply reconciles a live object; it runs only once the object lists the finalizer. */
  apply: Reconciler<T, C>;
  /**
   * cleanup runs once the object is being deleted and still lists the finalizer: release what
   * owner references cannot (outside the cluster, in other namespaces). The finalizer is removed
   * once it resolves without `requeueAfterMs`; return `{ requeueAfterMs }` to keep the finalizer
   * and look again later (waiting on something), or throw to retry with backoff.
   */
  cleanup: Reconciler<T, C>;
}

/**
 * withFinalizer is a reconciler that guards the object with `finalizer` (a qualified name,
 * `example.com/cleanup`), so `cleanup` runs before it can disappear:
 * - live, without the finalizer: adds it first (a guarded JSON patch that keeps other writers'
 *   finalizers), then runs `apply` on the patched object;
 * - live, with it: runs `apply`;
 * - being deleted, with it: runs `cleanup`, then removes the finalizer (guarded the same way);
 * - being deleted, without it: nothing (other finalizers hold it; it is not yours to touch).
 *
 * The controller's `for()` client writes the finalizer (`context.client`: any @k/clientset
 * resource client, which can get and JSON-patch), and each patched object is remembered, so the
 * next reconcile does not add the finalizer twice.
 */
export function withFinalizer<T extends KubernetesObject, C extends FinalizerClient<T>>(
  finalizer: string,
  handlers: FinalizerHandlers<T, C>,
): Reconciler<T, C> {
  return async (object, context) => {
    const options = { signal: context.signal };
    if (object.metadata?.deletionTimestamp) {
      if (!containsFinalizer(object, finalizer)) return;
      const result = await handlers.cleanup(object, context);
      if (result?.requeueAfterMs !== undefined && result.requeueAfterMs > 0) return result;
      const remaining = await removeFinalizerOnServer(context.client, object, finalizer, options);
      if (remaining) context.remember(remaining);
      context.logger.debug('finalizer removed', { finalizer });
      return;
    }
    let live = object;
    if (!containsFinalizer(object, finalizer)) {
      live = await addFinalizerOnServer(context.client, object, finalizer, options);
      context.remember(live);
      context.logger.debug('finalizer added', { finalizer });
      // Deleted between the read and the patch: the next event runs cleanup.
      if (live.metadata?.deletionTimestamp) return;
    }
    return handlers.apply(live, context);
  };
}
