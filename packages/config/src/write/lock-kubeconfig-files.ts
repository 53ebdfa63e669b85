import { mkdir, open, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { KubeconfigError } from '../errors.js';

/** LockOptions say how long to wait for another writer's lock. */
export interface LockOptions {
  /**
   * lockWaitMs waits up to this long for a held lock (default 0: fail at once, as client-go
   * does; `Infinity` waits as long as it takes). The wait keeps the process alive.
   */
  lockWaitMs?: number | undefined;
}

const RETRY_INTERVAL_MS = 20;

/**
 * lockKubeconfigFiles takes client-go's advisory lock on each file: `<file>.lock` created with
 * O_CREAT|O_EXCL, so kubectl and k writers exclude each other. Files are locked in sorted order
 * (no deadlock between two writers); parent directories are created (0755) as kubectl does. If a
 * lock is held, it waits up to `lockWaitMs`, then releases what it took and throws
 * `ERR_CONFIG_WRITE` naming the lock file. Returns the function that removes the locks.
 */
export async function lockKubeconfigFiles(
  paths: readonly string[],
  options: LockOptions = {},
): Promise<() => Promise<void>> {
  const held: string[] = [];
  const release = async () => {
    await Promise.all(held.splice(0).map((lock) => unlink(lock).catch(() => undefined)));
  };
  try {
    for (const path of [...new Set(paths)].sort()) {
      const lock = `${path}.lock`;
      await mkdir(dirname(path), { recursive: true, mode: 0o755 });
      await acquire(lock, path, options.lockWaitMs ?? 0);
      held.push(lock);
    }
  } catch (error) {
    await release();
    if (error instanceof KubeconfigError) throw error;
    throw new KubeconfigError(
      'ERR_CONFIG_WRITE',
      `cannot lock kubeconfig: ${(error as NodeJS.ErrnoException).code ?? 'failed'}`,
      { cause: error },
    );
  }
  return release;
}

/**
 * acquire creates the lock file, retrying every 20 ms until `waitMs` has passed (measured on the
 * monotonic clock, so a wall-clock step neither cuts the wait short nor stretches it). The
 * retry timer is a normal, referenced one on purpose: a program whose only work is waiting for
 * the lock must stay alive until it has the lock or gives up.
 */
async function acquire(lock: string, path: string, waitMs: number): Promise<void> {
  const deadline = performance.now() + waitMs;
  for (;;) {
    try {
      const handle = await open(lock, 'wx', 0o600);
      await handle.close();
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') {
        throw new KubeconfigError(
          'ERR_CONFIG_WRITE',
          `cannot lock kubeconfig "${path}": open ${lock}: ${code ?? 'failed'}`,
          { path, cause: error },
        );
      }
      if (performance.now() >= deadline) {
        throw new KubeconfigError(
          'ERR_CONFIG_WRITE',
          `cannot lock kubeconfig "${path}": ${lock} exists (another process is writing; remove it if it is stale)`,
          { path, cause: error },
        );
      }
      await sleep(RETRY_INTERVAL_MS);
    }
  }
}
