import { controlPlane } from '@k/testenv/vitest';
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

/** inParallel runs `task` for every item, at most `concurrency` at a time. */
export async function inParallel<T>(
  items: readonly T[],
  concurrency: number,
  task: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await task(items[next++] as T);
    }),
  );
}

/** eventually retries `check` until it stops throwing or `timeoutMs` passes. */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
