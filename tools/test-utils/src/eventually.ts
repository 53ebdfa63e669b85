import { setTimeout as sleep } from 'node:timers/promises';

/**
 * eventually retries `check` every `intervalMs` until it stops throwing, and throws its last error
 * once `timeoutMs` has passed: for e2e tests that wait on a controller or the API server.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  timeoutMs = 30_000,
  intervalMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(intervalMs);
    }
  }
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
