// The part of @k/envtest/vitest and @k/envtest/node-test that does not depend on the test runner:
// each runner passes its own hook functions and where a shared plane's kubeconfig comes from.
import { connectEnvironment, startEnvironment } from '../environment.js';
import { EnvtestError } from '../errors.js';
import type {
  Environment,
  EnvironmentOptions,
  OwnedEnvironment,
  TestNamespace,
  TestNamespaceOptions,
} from '../types.js';

/** UseEnvironmentOptions ask `useEnvironment` for a plane of the file's own, started with these options. */
export type UseEnvironmentOptions = EnvironmentOptions & { readonly own: true };

/** UseTestNamespaceOptions configure `useTestNamespace`. */
export interface UseTestNamespaceOptions extends TestNamespaceOptions {
  /** environment: where the namespaces are made (default the file's shared plane, `environment()`). */
  readonly environment?: Environment | undefined;
  /**
   * waitForDeletion: `'file'` (default) starts each test's deletion after it and waits for all of
   * the file's namespaces at its end, failing it with `ERR_ENVTEST_NAMESPACE_STUCK` for what is
   * stuck; `'test'` waits after each test; `false` never waits.
   */
  readonly waitForDeletion?: 'file' | 'test' | false | undefined;
  /** deletionTimeoutMs: how long a wait for one namespace may take (default 60 000, as `delete()`). */
  readonly deletionTimeoutMs?: number | undefined;
}

/** RunnerHooks are the test runner's hook registrations (vitest's or node:test's). */
export interface RunnerHooks {
  readonly beforeAll: (hook: () => Promise<void>) => void;
  readonly afterAll: (hook: () => Promise<void>) => void;
  readonly beforeEach: (hook: () => Promise<void>) => void;
  readonly afterEach: (hook: () => Promise<void>) => void;
}

/** RunnerSettings say how one runner finds the run's shared plane. */
export interface RunnerSettings {
  readonly hooks: RunnerHooks;
  /** sharedKubeconfig: the run's plane (vitest's `inject`, `K_ENVTEST_KUBECONFIG`), if any. */
  readonly sharedKubeconfig: () => string | undefined;
  /** noSharedPlane is printed on stderr when a file starts a plane because there is no shared one. */
  readonly noSharedPlane?: string | undefined;
  /**
   * closeWithNamespaces: `useTestNamespace`'s teardown also closes a connection to the shared plane
   * that no `useEnvironment()` holds (for runners where nothing else would close it).
   */
  readonly closeWithNamespaces?: boolean | undefined;
}

function notRunning(what: string): EnvtestError {
  return new EnvtestError(
    'ERR_ENVTEST_NOT_RUNNING',
    `${what} is only available inside tests and hooks, once the file's beforeAll/before hooks ran`,
  );
}

/**
 * environmentView is an object whose members are those of `current()` at the moment they are read:
 * what `useEnvironment` returns at a file's top level, before any plane exists. Reading a member
 * while there is none throws `ERR_ENVTEST_NOT_RUNNING`. It is never a thenable.
 */
export function environmentView<T extends Environment>(
  current: () => T | undefined,
  what: string,
): T {
  return new Proxy(Object.create(null) as T, {
    get(_target, key) {
      if (key === 'then') return undefined;
      const live = current();
      if (!live) {
        if (typeof key === 'symbol') return undefined;
        throw notRunning(`${what}.${key}`);
      }
      const value: unknown = Reflect.get(live, key, live);
      return typeof value === 'function'
        ? (value as (...args: unknown[]) => unknown).bind(live)
        : value;
    },
    has(_target, key) {
      const live = current();
      return live !== undefined && key in live;
    },
  });
}

/**
 * RunnerFile is one test file's view of control planes: the handle on the shared plane that
 * `environment()` and every `useEnvironment()` of the file use (connected, or a plane started for
 * the file when there is no shared one), the planes of its own, and the namespaces whose deletion
 * it still waits for. Every teardown first waits for those namespaces, so a plane is never
 * stopped under a namespace deletion whatever order the hooks were registered in (vitest runs
 * `after*` hooks last-registered first, node:test first-registered first).
 */
export class RunnerFile {
  readonly #settings: RunnerSettings;
  #shared: Environment | undefined;
  #sharedOwned = false;
  #sharedStarting: Promise<Environment> | undefined;
  #sharedUsers = 0;
  readonly #namespaceWaits = new Set<() => Promise<void>>();

  constructor(settings: RunnerSettings) {
    this.#settings = settings;
  }

  /**
   * environment is the file's handle on the shared plane: the one `useEnvironment()` started or
   * connected, else a connection to the run's plane made now. Without either it throws
   * `ERR_ENVTEST_NOT_RUNNING`, saying how to get one.
   */
  environment(): Environment {
    if (this.#shared) return this.#shared;
    const kubeconfigPath = this.#settings.sharedKubeconfig();
    if (!kubeconfigPath) {
      throw new EnvtestError(
        'ERR_ENVTEST_NOT_RUNNING',
        'environment() found no control plane: K_ENVTEST_KUBECONFIG is unset and no global setup ' +
          "provided one (add globalSetup: ['@k/envtest/vitest/global-setup'], or call " +
          'useEnvironment() at the top of the file to start one for it)',
      );
    }
    this.#shared = connectEnvironment(kubeconfigPath);
    this.#sharedOwned = false;
    return this.#shared;
  }

  /** useEnvironment registers the hooks of `useEnvironment()` and returns its view. */
  useEnvironment(options?: UseEnvironmentOptions): Environment | OwnedEnvironment {
    if (options !== undefined) {
      if ((options as { own?: unknown }).own !== true) {
        throw new EnvtestError(
          'ERR_ENVTEST_INVALID_OPTIONS',
          "useEnvironment(options) starts a plane of the file's own and needs `own: true`; the " +
            "shared plane's options go to the global setup (defineGlobalSetup) or `k-envtest run`",
        );
      }
      return this.#useOwnEnvironment(options);
    }
    const { hooks } = this.#settings;
    let live: Environment | undefined;
    hooks.beforeAll(async () => {
      this.#sharedUsers++;
      live = await this.#acquireShared();
    });
    hooks.afterAll(async () => {
      live = undefined;
      if (--this.#sharedUsers <= 0) await this.closeShared();
    });
    return environmentView(() => live, 'useEnvironment()');
  }

  #useOwnEnvironment(options: UseEnvironmentOptions): OwnedEnvironment {
    const environmentOptions: EnvironmentOptions & { own?: true } = { ...options };
    delete environmentOptions.own;
    const { hooks } = this.#settings;
    let live: OwnedEnvironment | undefined;
    hooks.beforeAll(async () => {
      live = await startEnvironment(environmentOptions);
    });
    hooks.afterAll(async () => {
      const environment = live;
      live = undefined;
      if (!environment) return;
      try {
        await this.waitForNamespaces();
      } finally {
        await environment.stop();
      }
    });
    return environmentView(() => live, 'useEnvironment({ own: true })');
  }

  async #acquireShared(): Promise<Environment> {
    if (this.#shared) return this.#shared;
    if (this.#settings.sharedKubeconfig()) return this.environment();
    // No shared plane: start one for this file (once, however many useEnvironment() calls).
    this.#sharedStarting ??= (async () => {
      if (this.#settings.noSharedPlane) process.stderr.write(`${this.#settings.noSharedPlane}\n`);
      try {
        const started = await startEnvironment();
        this.#shared = started;
        this.#sharedOwned = true;
        return started;
      } finally {
        this.#sharedStarting = undefined;
      }
    })();
    return this.#sharedStarting;
  }

  /**
   * closeShared waits for the file's namespaces, then closes the handle on the shared plane (what
   * it made: clientsets, proxies…), or stops the plane when it was started for this file.
   */
  async closeShared(): Promise<void> {
    const shared = this.#shared;
    if (!shared) return;
    try {
      await this.waitForNamespaces();
    } finally {
      this.#shared = undefined;
      this.#sharedUsers = 0;
      if (this.#sharedOwned) await (shared as OwnedEnvironment).stop();
      else await shared.close();
    }
  }

  /** useTestNamespace registers the hooks of `useTestNamespace()` and returns its view. */
  useTestNamespace(options: UseTestNamespaceOptions = {}): { readonly name: string } {
    const {
      environment,
      waitForDeletion = 'file',
      deletionTimeoutMs: timeoutMs,
      ...namespaceOptions
    } = options;
    if (waitForDeletion !== 'file' && waitForDeletion !== 'test' && waitForDeletion !== false) {
      throw new EnvtestError(
        'ERR_ENVTEST_INVALID_OPTIONS',
        "useTestNamespace: waitForDeletion must be 'file', 'test' or false",
      );
    }
    const { hooks } = this.#settings;
    let current: TestNamespace | undefined;
    const deleted: TestNamespace[] = [];
    hooks.beforeEach(async () => {
      current = await (environment ?? this.environment()).createTestNamespace(namespaceOptions);
    });
    hooks.afterEach(async () => {
      const namespace = current;
      current = undefined;
      if (!namespace) return;
      if (waitForDeletion === 'test') return namespace.delete({ wait: true, timeoutMs });
      await namespace.delete({ wait: false }); // returns once the DELETE is accepted
      if (waitForDeletion === 'file') deleted.push(namespace);
    });
    const wait = () => waitUntilDeleted(deleted.splice(0), timeoutMs);
    if (waitForDeletion === 'file') this.#namespaceWaits.add(wait);
    hooks.afterAll(async () => {
      try {
        await wait();
      } finally {
        if (this.#settings.closeWithNamespaces && !environment && this.#sharedUsers === 0) {
          await this.closeShared();
        }
      }
    });
    return {
      get name(): string {
        if (!current) throw notRunning('useTestNamespace().name');
        return current.name;
      },
    };
  }

  /** waitForNamespaces waits until every namespace the file deleted without waiting is gone. */
  async waitForNamespaces(): Promise<void> {
    const failures: unknown[] = [];
    for (const wait of this.#namespaceWaits) {
      try {
        await wait();
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length > 0) throw failures[0];
  }
}

/**
 * waitUntilDeleted waits for all `namespaces` at once and reports every one that is stuck: one
 * failure is thrown as it is, several as one `ERR_ENVTEST_NAMESPACE_STUCK` naming them all.
 */
async function waitUntilDeleted(
  namespaces: readonly TestNamespace[],
  timeoutMs: number | undefined,
): Promise<void> {
  const results = await Promise.allSettled(
    namespaces.map((namespace) => namespace.delete({ wait: true, timeoutMs })),
  );
  const failures = results.flatMap((result) =>
    result.status === 'rejected' ? [result.reason as unknown] : [],
  );
  if (failures.length === 0) return;
  if (failures.length === 1) throw failures[0];
  const stuck = failures.filter(
    (failure) => EnvtestError.isInstance(failure) && failure.code === 'ERR_ENVTEST_NAMESPACE_STUCK',
  );
  if (stuck.length !== failures.length) throw failures.find((failure) => !stuck.includes(failure));
  throw new EnvtestError(
    'ERR_ENVTEST_NAMESPACE_STUCK',
    `${failures.length} namespaces of this file did not go away:\n${stuck
      .map((failure) => `- ${(failure as Error).message}`)
      .join('\n')}`,
    { cause: failures[0] },
  );
}
