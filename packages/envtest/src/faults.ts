import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { inferClientset, type Clientset } from '@k/clientset';
import { COMPONENT_ORDER, FaultProxy, renderKubeconfig, type ControlPlane } from '@k/testenv';
import { EnvtestError, toEnvtestError } from './errors.js';
import type { EnvironmentContext } from './internal/context.js';
import type { ComponentName, EnvironmentFaultProxy, OwnedEnvironment, TestUser } from './types.js';

/** OwnedFaults are the fault methods of an {@link OwnedEnvironment}. */
export type OwnedFaults = Pick<
  OwnedEnvironment,
  'restart' | 'stopComponent' | 'startComponent' | 'compactEtcd'
>;

/** EngineFaults is what {@link ownedFaults} needs of the engine's control plane. */
export type EngineFaults = Pick<
  ControlPlane,
  'restart' | 'stopComponent' | 'startComponent' | 'compactEtcd'
>;

/**
 * ownedFaults wraps the engine's faults of a plane this process started: `restart`,
 * `stopComponent` and `startComponent` (same flags, port and data; `restart` and `startComponent`
 * resolve once the component is ready again) and `compactEtcd`. A name that is no component is
 * ERR_ENVTEST_INVALID_OPTIONS, a component the plane does not run
 * ERR_ENVTEST_COMPONENT_UNAVAILABLE; engine errors become EnvtestErrors.
 */
export function ownedFaults(
  plane: EngineFaults,
  components: readonly ComponentName[],
): OwnedFaults {
  const checked =
    (method: 'restart' | 'stopComponent' | 'startComponent') =>
    async (component: ComponentName): Promise<void> => {
      if (!COMPONENT_ORDER.includes(component))
        throw new EnvtestError(
          'ERR_ENVTEST_INVALID_OPTIONS',
          `${method}: ${JSON.stringify(String(component)).slice(0, 80)} is not a component (${COMPONENT_ORDER.join(', ')})`,
        );
      if (!components.includes(component))
        throw new EnvtestError(
          'ERR_ENVTEST_COMPONENT_UNAVAILABLE',
          `${method}: this plane does not run ${component} (it runs ${components.join(', ')})`,
        );
      try {
        await plane[method](component);
      } catch (error) {
        throw toEnvtestError(error);
      }
    };
  return {
    restart: checked('restart'),
    stopComponent: checked('stopComponent'),
    startComponent: checked('startComponent'),
    compactEtcd: async () => {
      try {
        return await plane.compactEtcd();
      } catch (error) {
        throw toEnvtestError(error);
      }
    },
  };
}

let sequence = 0;

/**
 * startFaultProxy is an environment's `faultProxy()`: a new TCP proxy on 127.0.0.1 in front of the
 * plane's kube-apiserver (the engine's `FaultProxy.inFrontOf`, so it works as well in front of a
 * plane another process owns), its kubeconfig with the plane's users (admin, alice, tester) in the
 * run directory, and clientsets through it per user and user agent, memoized. Each call makes a
 * new proxy, so tests do not share fault states; the handle's `close()` closes it with its
 * clientsets, and so does its own `close()` (idempotent).
 */
export async function startFaultProxy(
  context: EnvironmentContext,
  admin: TestUser,
): Promise<EnvironmentFaultProxy> {
  const directory = path.join(context.runDir, 'envtest-fault-proxies');
  const name = `${process.pid}-${sequence++}`;
  let proxy: FaultProxy;
  try {
    await mkdir(directory, { recursive: true, mode: 0o700 });
    proxy = await FaultProxy.inFrontOf(context.state, path.join(directory, `${name}.kubeconfig`));
  } catch (error) {
    throw toEnvtestError(error);
  }
  const clientsets = new Map<TestUser, Map<string | undefined, Promise<Clientset>>>();
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      const made = [...clientsets.values()].flatMap((byAgent) => [...byAgent.values()]);
      clientsets.clear();
      await proxy.close();
      for (const clientset of made)
        await clientset.then(
          (ready) => ready.close(),
          () => undefined,
        );
    })());
  context.closeables.push({ what: `the fault proxy ${proxy.server}`, close });

  let clientsetSequence = 0;
  const makeClientset = async (user: TestUser, userAgent: string | undefined) => {
    const kubeconfigPath = path.join(directory, `${name}-${clientsetSequence++}.kubeconfig`);
    await writeFile(
      kubeconfigPath,
      renderKubeconfig({
        clusterName: 'k-envtest-fault-proxy',
        server: proxy.server,
        caPem: context.state.caPem,
        users: [{ name: user.name, ...user.credentials }],
        currentContext: user.name,
      }),
      { mode: 0o600 },
    );
    return inferClientset({
      kubeconfig: kubeconfigPath,
      inCluster: false,
      throttle: 'off',
      ...(userAgent !== undefined ? { transport: { userAgent } } : {}),
    });
  };
  return {
    server: proxy.server,
    kubeconfigPath: proxy.kubeconfigPath,
    clientset(user = admin, options = {}) {
      if (closed)
        return Promise.reject(
          new EnvtestError('ERR_ENVTEST_NOT_RUNNING', `the fault proxy ${proxy.server} is closed`),
        );
      let byAgent = clientsets.get(user);
      if (!byAgent) {
        byAgent = new Map<string | undefined, Promise<Clientset>>();
        clientsets.set(user, byAgent);
      }
      let made = byAgent.get(options.userAgent);
      if (!made) {
        made = makeClientset(user, options.userAgent);
        byAgent.set(options.userAgent, made);
      }
      return made;
    },
    cut: () => proxy.cut(),
    stall: () => proxy.stall(),
    latency: (ms) => proxy.latency(ms),
    refuse: () => proxy.refuse(),
    heal: () => proxy.heal(),
    close,
  };
}
