// Stub of the lead's skeleton; H3 implements it.
import type { Environment, EnvironmentOptions, OwnedEnvironment } from './types.js';

/** startEnvironment starts a control plane this process owns. */
export function startEnvironment(_options?: EnvironmentOptions): Promise<OwnedEnvironment> {
  throw new Error('not implemented yet (issue 27)');
}

/** connectEnvironment connects to a plane another process owns (default: `K_ENVTEST_KUBECONFIG`). */
export function connectEnvironment(_kubeconfigPath?: string): Environment {
  throw new Error('not implemented yet (issue 27)');
}
