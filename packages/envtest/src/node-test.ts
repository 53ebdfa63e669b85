// Stub of the lead's skeleton; H5 implements it.
import type { Environment } from './types.js';

/** useEnvironment gives a node:test file its environment. */
export function useEnvironment(): Environment {
  throw new Error('not implemented yet (issue 27)');
}
