import type { ControlPlaneState } from '@k/testenv';
import type { ComponentName } from '../types.js';

/** Closeable is something an environment handle made and must undo in `close()`. */
export interface Closeable {
  /** what names it in an error when closing it fails (never a secret). */
  readonly what: string;
  close(): Promise<void>;
}

/**
 * EnvironmentContext is what every part of an environment handle shares: the plane's state (as the
 * engine wrote it), where this handle keeps its files, and what it must close. One per handle:
 * `startEnvironment` and each `connectEnvironment` make their own.
 */
export interface EnvironmentContext {
  readonly state: ControlPlaneState;
  /** runDir: the plane's run directory (removed with the plane; the engine's watchdog cleans it). */
  readonly runDir: string;
  /** usersDir: where this handle writes per-user kubeconfigs (`<runDir>/envtest-users/`, mode 0700). */
  readonly usersDir: string;
  readonly components: readonly ComponentName[];
  /** owned: this process started the plane and may stop or break it. */
  readonly owned: boolean;
  /** closeables: closed in reverse order by `close()`. */
  readonly closeables: Closeable[];
}

/** closeAll closes every closeable, newest first, and throws the first failure after trying all. */
export async function closeAll(closeables: Closeable[]): Promise<void> {
  const failures: unknown[] = [];
  while (closeables.length > 0) {
    const closeable = closeables.pop()!;
    try {
      await closeable.close();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw failures[0];
}
