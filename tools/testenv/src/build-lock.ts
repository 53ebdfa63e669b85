import { hostname } from 'node:os';
import { open, readFile, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { ControlPlaneError } from './errors.js';

/** LockOwner is what a lock file records about the process holding it. */
export interface LockOwner {
  readonly pid: number;
  readonly hostname: string;
  readonly acquiredAt: string;
}

/** BuildLockOptions tune {@link acquireBuildLock}. */
export interface BuildLockOptions {
  /** How long to wait for another holder, in ms (default 90 minutes: a cold build is long). */
  readonly timeoutMs?: number;
  /** Poll interval in ms (default 1000). */
  readonly pollMs?: number;
  /** Called once when the lock is busy, with its current owner. */
  readonly onWait?: (owner: LockOwner | undefined) => void;
}

/** BuildLock is a held lock; `release()` is idempotent. */
export interface BuildLock {
  readonly path: string;
  release(): Promise<void>;
}

/**
 * acquireBuildLock takes an exclusive lock by creating `path` with O_EXCL and writing the owner's
 * pid into it. A lock whose owner is a dead process on this host (or whose file is empty or
 * unreadable for longer than a grace period — a crash between create and write) is stale and is
 * removed. Waits until the lock is free or `timeoutMs` passes (then throws BUILD_LOCK_TIMEOUT).
 * Safe across processes on one host; not meant for network file systems.
 */
export async function acquireBuildLock(
  path: string,
  options: BuildLockOptions = {},
): Promise<BuildLock> {
  const timeoutMs = options.timeoutMs ?? 90 * 60_000;
  const pollMs = options.pollMs ?? 1000;
  const deadline = Date.now() + timeoutMs;
  let waited = false;
  let unreadableSince: number | undefined;
  for (;;) {
    try {
      const handle = await open(path, 'wx');
      const owner: LockOwner = {
        pid: process.pid,
        hostname: hostname(),
        acquiredAt: new Date().toISOString(),
      };
      await handle.writeFile(JSON.stringify(owner));
      await handle.close();
      let released = false;
      return {
        path,
        async release() {
          if (released) return;
          released = true;
          await rm(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await readLockOwner(path);
    if (owner === undefined) {
      // Empty or garbled: the owner may be between create and write; give it a moment.
      unreadableSince ??= Date.now();
      if (Date.now() - unreadableSince > 5000) {
        await rm(path, { force: true });
        continue;
      }
    } else {
      unreadableSince = undefined;
      if (owner.hostname === hostname() && !isProcessAlive(owner.pid)) {
        await removeIfUnchanged(path, owner);
        continue;
      }
    }
    if (!waited) {
      waited = true;
      options.onWait?.(owner);
    }
    if (Date.now() >= deadline) {
      throw new ControlPlaneError(
        'BUILD_LOCK_TIMEOUT',
        `build lock ${path} is still held${owner ? ` by pid ${owner.pid}` : ''} after ${Math.round(timeoutMs / 1000)}s`,
        { step: 'lock' },
      );
    }
    await sleep(pollMs);
  }
}

async function readLockOwner(path: string): Promise<LockOwner | undefined> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<LockOwner>;
    if (typeof parsed.pid === 'number' && typeof parsed.hostname === 'string') {
      return { pid: parsed.pid, hostname: parsed.hostname, acquiredAt: String(parsed.acquiredAt) };
    }
  } catch {
    // Missing (just released) or partially written: treated as unreadable.
  }
  return undefined;
}

// Two waiters may both see the same dead owner; only remove the file if it still names that owner,
// so the second does not delete a lock the first has since taken.
async function removeIfUnchanged(path: string, owner: LockOwner): Promise<void> {
  const current = await readLockOwner(path);
  if (current && current.pid === owner.pid && current.acquiredAt === owner.acquiredAt) {
    await rm(path, { force: true });
  }
}

/** isProcessAlive is true when a process with this pid exists (signal 0 probe). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
