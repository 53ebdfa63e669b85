import { controlPlane } from '@k/testenv/vitest';
import type { Watch } from '@k/rest';
import { afterAll, beforeAll } from 'vitest';

export { eventually, inParallel } from '@k/test-utils';
import { inferClientset, type Clientset, type InferClientsetOptions } from '../src/index.js';

/**
 * clientsetFor builds a clientset for the run's control plane the way an application does
 * (`inferClientset` with the kubeconfig and a context), without a throttle so the suites stay fast.
 */
export function clientsetFor(
  context = 'admin',
  options: InferClientsetOptions = {},
): Promise<Clientset> {
  return inferClientset({
    kubeconfig: controlPlane().kubeconfigPath,
    context,
    throttle: 'off',
    ...options,
  });
}

/** UserClientsets are clientsets for the control plane's three users. */
export interface UserClientsets {
  admin: Clientset;
  tester: Clientset;
  alice: Clientset;
}

/**
 * useUserClientsets makes the suite's clientsets for `admin`, `tester` (ClusterRole `edit`) and
 * `alice` (no rights) before its tests and closes them after; read them inside tests.
 */
export function useUserClientsets(): UserClientsets {
  const users = {} as UserClientsets;
  beforeAll(async () => {
    [users.admin, users.tester, users.alice] = await Promise.all([
      clientsetFor('admin'),
      clientsetFor('tester'),
      clientsetFor('alice'),
    ]);
  });
  afterAll(async () => {
    await Promise.all([users.admin?.close(), users.tester?.close(), users.alice?.close()]);
  });
  return users;
}

/** firstEvents reads the first `count` events of `watch` (fewer if it ends first), then closes it. */
export async function firstEvents(watch: Watch<unknown>, count: number): Promise<unknown[]> {
  const events: unknown[] = [];
  try {
    for await (const event of watch) {
      events.push(event);
      if (events.length === count) break;
    }
  } finally {
    watch.close();
  }
  return events;
}
