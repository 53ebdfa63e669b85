import { setTimeout as sleep } from 'node:timers/promises';
import { inferClientset, type Clientset } from '@k/clientset';
import type { Namespace } from '@k/clientset/core/v1';
import { isNotFound } from '@k/rest';
import { NO_WARNINGS } from '@k/rest/warnings';
import { uniqueNamespaceName } from '@k/testenv';
import { EnvtestError } from './errors.js';
import type { EnvironmentContext } from './internal/context.js';
import {
  deleteRemaining,
  finalizeNamespace,
  listRemaining,
  namespacedResources,
  stuckReport,
} from './namespace-cleanup.js';
import type {
  TestNamespace,
  TestNamespaceDeleteOptions,
  TestNamespaceOptions,
  TestUser,
} from './types.js';

/** TEST_NAMESPACE_LABEL marks every namespace {@link createTestNamespace} makes. */
export const TEST_NAMESPACE_LABEL = 'k-envtest/test-namespace';
const DEFAULT_CREATE_TIMEOUT_MS = 15_000;
const DEFAULT_DELETE_TIMEOUT_MS = 60_000;
/** Polls start fast (a namespace without content goes in milliseconds) and back off to this. */
const MAX_POLL_MS = 500;

/**
 * createTestNamespace creates `<prefix>-<8 hex>` (default prefix `test`) as admin, labelled
 * `k-envtest/test-namespace=true` plus `labels`. When kube-controller-manager runs it waits (up to
 * `timeoutMs`, default 15 000) for the namespace's `default` ServiceAccount, so Pods can be created
 * at once; without it there is none to wait for. Throws ERR_ENVTEST_PROVISION_FAILED or
 * ERR_ENVTEST_READY_TIMEOUT.
 */
export async function createTestNamespace(
  context: EnvironmentContext,
  admin: TestUser,
  options: TestNamespaceOptions = {},
): Promise<TestNamespace> {
  const clientset = await admin.clientset();
  const name = uniqueNamespaceName(options.prefix);
  const controllerManager = context.components.includes('kube-controller-manager');
  try {
    await clientset.coreV1.namespaces().create({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels: { ...options.labels, [TEST_NAMESPACE_LABEL]: 'true' } },
    });
  } catch (error) {
    throw new EnvtestError(
      'ERR_ENVTEST_PROVISION_FAILED',
      `creating namespace ${name} failed: ${(error as Error).message}`,
      { cause: error },
    );
  }
  if (controllerManager && (options.waitForServiceAccount ?? true)) {
    const timeoutMs = options.timeoutMs ?? DEFAULT_CREATE_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    for (let pause = 10; ; pause = Math.min(pause * 2, 100)) {
      try {
        await clientset.coreV1.serviceAccounts(name).get('default');
        break;
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
      if (Date.now() > deadline) {
        throw new EnvtestError(
          'ERR_ENVTEST_READY_TIMEOUT',
          `namespace ${name} got no default ServiceAccount within ${timeoutMs} ms (kube-controller-manager makes it; is it running?)`,
        );
      }
      await sleep(pause);
    }
  }
  return new EnvironmentTestNamespace(
    () => cleanupClientset(context, admin),
    name,
    controllerManager,
  );
}

/** CLEANUP_USER_AGENT names namespace deletion's requests in the audit log. */
export const CLEANUP_USER_AGENT = 'k-envtest/namespace-cleanup';

const cleanupClientsets = new WeakMap<EnvironmentContext, Promise<Clientset>>();

/**
 * cleanupClientset is the admin clientset namespace deletion uses, one per handle (closed by its
 * `close()`): it lists every namespaced resource, deprecated ones too (v1 Endpoints), whose
 * `Warning` headers would otherwise land in the test's output at each deletion.
 */
function cleanupClientset(context: EnvironmentContext, admin: TestUser): Promise<Clientset> {
  let made = cleanupClientsets.get(context);
  if (made === undefined) {
    const clientset = inferClientset({
      kubeconfig: admin.kubeconfigPath,
      inCluster: false,
      throttle: 'off',
      warningHandler: NO_WARNINGS,
      transport: { userAgent: CLEANUP_USER_AGENT },
    });
    made = clientset;
    cleanupClientsets.set(context, clientset);
    context.closeables.push({
      what: 'the namespace cleanup clientset',
      close: async () => {
        cleanupClientsets.delete(context);
        await clientset.then(
          (opened) => opened.close(),
          () => undefined,
        );
      },
    });
  }
  return made;
}

/**
 * EnvironmentTestNamespace is a namespace {@link createTestNamespace} made. `delete()` may be
 * called any number of times: the DELETE is sent once, each call with `wait` waits. Without
 * kube-controller-manager only a waiting call empties the namespace: `delete({ wait: false })`
 * leaves it Terminating until a later `delete()` waits.
 */
class EnvironmentTestNamespace implements TestNamespace {
  readonly name: string;
  readonly #makeClientset: () => Promise<Clientset>;
  readonly #controllerManager: boolean;
  #clientset!: Clientset;
  #deletion: Promise<void> | undefined;

  constructor(makeClientset: () => Promise<Clientset>, name: string, controllerManager: boolean) {
    this.#makeClientset = makeClientset;
    this.name = name;
    this.#controllerManager = controllerManager;
  }

  async delete(options: TestNamespaceDeleteOptions = {}): Promise<void> {
    this.#clientset = await this.#makeClientset();
    this.#deletion ??= this.#startDeletion();
    await this.#deletion;
    if (options.wait === false) return;
    await this.#waitUntilGone(options.timeoutMs ?? DEFAULT_DELETE_TIMEOUT_MS);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.delete();
  }

  async #startDeletion(): Promise<void> {
    try {
      await this.#clientset.coreV1.namespaces().delete(this.name);
    } catch (error) {
      if (isNotFound(error)) return;
      throw new EnvtestError(
        'ERR_ENVTEST_PROVISION_FAILED',
        `deleting namespace ${this.name} failed: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }

  /**
   * waitUntilGone polls until the namespace is 404, doing the namespace controller's work each
   * round: list what is left in every namespaced resource, delete what is not being deleted yet,
   * and once nothing is left, finalize. Without kube-controller-manager nobody else would; with it,
   * its namespace controller waits a fixed 5 s before it even starts (`namespaceDeletionGracePeriod`,
   * for HA apiservers and etcd members a test plane does not have), which every test would pay.
   * Both doing the same idempotent steps is safe. Objects held by finalizers stay until their
   * controller (or the test) removes them.
   */
  async #waitUntilGone(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const resources = await namespacedResources(this.#clientset);
    for (let pause = 20; ; pause = Math.min(pause * 2, MAX_POLL_MS)) {
      const current = await this.#get();
      if (current === undefined) return;
      const remaining = await listRemaining(this.#clientset, this.name, resources);
      if (remaining.objects.size > 0) {
        await deleteRemaining(this.#clientset, this.name, remaining.objects);
      } else if (remaining.complete) {
        await finalizeNamespace(this.#clientset, this.name);
      }
      if (Date.now() > deadline) {
        const stuck = await this.#stuck(timeoutMs);
        if (stuck) throw stuck;
        return;
      }
      await sleep(Math.min(pause, Math.max(deadline - Date.now(), 0) + 1));
    }
  }

  async #get(): Promise<Namespace | undefined> {
    try {
      return await this.#clientset.coreV1.namespaces().get(this.name);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** stuck is the report of what holds the namespace, or undefined when it went meanwhile. */
  async #stuck(timeoutMs: number): Promise<EnvtestError | undefined> {
    const [object, resources] = await Promise.all([
      this.#get(),
      namespacedResources(this.#clientset),
    ]);
    if (object === undefined) return undefined;
    const remaining = await listRemaining(this.#clientset, this.name, resources);
    return new EnvtestError(
      'ERR_ENVTEST_NAMESPACE_STUCK',
      stuckReport({
        namespace: this.name,
        timeoutMs,
        object,
        remaining: [...remaining.objects.values()]
          .flat()
          .sort((a, b) => `${a.resource}/${a.name}`.localeCompare(`${b.resource}/${b.name}`)),
        controllerManager: this.#controllerManager,
      }),
    );
  }
}
