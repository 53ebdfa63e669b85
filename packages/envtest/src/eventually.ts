// Stub of the lead's skeleton; H3 implements it.
import type { EventuallyOptions } from './types.js';

/** eventually retries `check` until it returns without throwing, and returns its value. */
export function eventually<T>(
  _check: (attempt: number) => T | Promise<T>,
  _options?: EventuallyOptions,
): Promise<T> {
  throw new Error('not implemented yet (issue 27)');
}
