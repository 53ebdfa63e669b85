import { afterEach, beforeEach, inject } from 'vitest';
import type { ControlPlaneConnection } from './connection.js';
import {
  connectionFromEnvironment,
  createTestNamespace,
  type CreateTestNamespaceOptions,
  type TestNamespace,
} from './test-namespace.js';
import type {} from './vitest-context.js';

/**
 * controlPlane returns the run's control plane: what the global setup provided (`inject`), else
 * `K_TESTENV_KUBECONFIG`. Call it inside tests or hooks.
 */
export function controlPlane(): ControlPlaneConnection {
  return inject('kTestenv') ?? connectionFromEnvironment();
}

/**
 * useTestNamespace registers hooks that give every test of the enclosing suite a fresh namespace and
 * start its deletion afterwards. Read `.name` inside a test (reading it outside one throws).
 */
export function useTestNamespace(options: Omit<CreateTestNamespaceOptions, 'connection'> = {}): {
  readonly name: string;
} {
  let current: TestNamespace | undefined;
  beforeEach(async () => {
    current = await createTestNamespace({ ...options, connection: controlPlane() });
  });
  afterEach(async () => {
    const namespace = current;
    current = undefined;
    await namespace?.delete();
  });
  return {
    get name(): string {
      if (!current) throw new Error('useTestNamespace().name is only available inside a test');
      return current.name;
    },
  };
}
