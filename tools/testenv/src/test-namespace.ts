import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { readControlPlaneState, toConnection, type ControlPlaneConnection } from './connection.js';
import { ControlPlaneError } from './errors.js';
import { kubeRequest } from './kube-request.js';

/** KUBECONFIG_ENV names the variable that points tests (and reuse) at a running control plane. */
export const KUBECONFIG_ENV = 'K_TESTENV_KUBECONFIG';

/**
 * connectionFromEnvironment returns the control plane that `K_TESTENV_KUBECONFIG` points at (set by
 * the vitest global setup, or by the user after `k-testenv up`). Throws NOT_RUNNING when unset or
 * when the kubeconfig has no k-testenv state file beside it.
 */
export function connectionFromEnvironment(
  env: NodeJS.ProcessEnv = process.env,
): ControlPlaneConnection {
  const kubeconfigPath = env[KUBECONFIG_ENV];
  if (!kubeconfigPath) {
    throw new ControlPlaneError(
      'NOT_RUNNING',
      `${KUBECONFIG_ENV} is not set; run the tests with @k/testenv's vitest global setup or after \`k-testenv up\``,
    );
  }
  return toConnection(readControlPlaneState(kubeconfigPath));
}

/** TestNamespace is a namespace made for one test; `delete()` starts its deletion (idempotent). */
export interface TestNamespace {
  readonly name: string;
  delete(): Promise<void>;
}

/** CreateTestNamespaceOptions configure {@link createTestNamespace}. */
export interface CreateTestNamespaceOptions {
  /** Start of the name, sanitized to a DNS label (default `test`). */
  readonly prefix?: string;
  /** Control plane to use (default {@link connectionFromEnvironment}). */
  readonly connection?: ControlPlaneConnection;
  /** Extra labels; `k-testenv/test-namespace: "true"` is always set. */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * Wait until the controller-manager has created the namespace's `default` ServiceAccount, so Pods
   * can be created right away (default true; set false when no controller-manager runs).
   */
  readonly waitForServiceAccount?: boolean;
  /** ms (default 15 000). */
  readonly timeoutMs?: number;
}

/**
 * uniqueNamespaceName returns `<prefix>-<8 random hex>`: lower case, at most 63 characters, a valid
 * DNS label, and unique enough that parallel tests never collide.
 */
export function uniqueNamespaceName(prefix = 'test'): string {
  const suffix = randomBytes(4).toString('hex');
  const cleaned =
    prefix
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 63 - suffix.length - 1)
      .replace(/-+$/, '') || 'test';
  return `${cleaned}-${suffix}`;
}

/**
 * createTestNamespace creates a uniquely named namespace as `admin` and returns it. Deleting it is
 * asynchronous on the server (the namespace controller empties it first); `delete()` does not wait.
 */
export async function createTestNamespace(
  options: CreateTestNamespaceOptions = {},
): Promise<TestNamespace> {
  const connection = options.connection ?? connectionFromEnvironment();
  const name = uniqueNamespaceName(options.prefix);
  const common = {
    server: connection.server,
    caPem: connection.caPem,
    credentials: connection.users.admin,
  };
  const created = await kubeRequest({
    ...common,
    path: '/api/v1/namespaces',
    method: 'POST',
    body: {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels: { ...options.labels, 'k-testenv/test-namespace': 'true' } },
    },
  });
  if (created.status !== 201) {
    throw new ControlPlaneError(
      'PROVISION_FAILED',
      `creating namespace ${name} returned ${created.status}`,
      {
        logTail: created.body,
      },
    );
  }
  if (options.waitForServiceAccount ?? true) {
    const deadline = Date.now() + (options.timeoutMs ?? 15_000);
    for (;;) {
      const account = await kubeRequest({
        ...common,
        path: `/api/v1/namespaces/${name}/serviceaccounts/default`,
      });
      if (account.status === 200) break;
      if (Date.now() > deadline) {
        throw new ControlPlaneError(
          'READY_TIMEOUT',
          `namespace ${name} got no default ServiceAccount in time (is the controller-manager running?)`,
        );
      }
      await sleep(50);
    }
  }
  let deleted = false;
  return {
    name,
    async delete() {
      if (deleted) return;
      deleted = true;
      const response = await kubeRequest({
        ...common,
        path: `/api/v1/namespaces/${name}`,
        method: 'DELETE',
      });
      if (response.status !== 200 && response.status !== 202 && response.status !== 404) {
        throw new ControlPlaneError(
          'PROVISION_FAILED',
          `deleting namespace ${name} returned ${response.status}`,
          {
            logTail: response.body,
          },
        );
      }
    },
  };
}
