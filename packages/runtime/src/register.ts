import { CLIENTSET, registerClientset, type RegisterClientsetOptions } from '@k/clientset/di';
import type { DependencyContainer, InjectionToken } from 'tsyringe';
import { RuntimeError } from './errors.js';
import type { EventRecorderOptions } from './events/event-recorder.js';
import { withDefaults } from './internal/with-defaults.js';
import { jsonLogger, type Logger } from './logger.js';
import {
  Manager,
  OPERATOR_THROTTLE,
  type ManagerLeaderElectionOptions,
  type ManagerOptions,
} from './manager/manager.js';
import { NOOP_METRICS, type MetricsSink } from './metrics/metrics-sink.js';
import { defaultControllerRateLimiter } from './workqueue/rate-limiters.js';
import {
  CONTROLLER_SETUP,
  EVENT_RECORDER,
  INFORMER_FACTORY,
  LEASE_CLIENT,
  MANAGER,
  METRICS_SINK,
  RATE_LIMITER_FACTORY,
  RUNTIME_LOGGER,
} from './tokens.js';

/** RegisterRuntimeOptions configure {@link registerRuntime}. */
export interface RegisterRuntimeOptions {
  /** name of the operator: the Events' `reportingController` and the Lease's default name. */
  name: string;
  /** manager are the Manager's options (probe and metrics servers, shutdown timeout, informer defaults). */
  manager?:
    | Omit<ManagerOptions, 'clientset' | 'logger' | 'metrics' | 'leaderElection' | 'rateLimiter'>
    | undefined;
  /** leaderElection turns leader election on, with the Lease in `namespace` (named `name` by default). */
  leaderElection?:
    | (Omit<ManagerLeaderElectionOptions, 'leases' | 'name'> & {
        namespace: string;
        name?: string | undefined;
      })
    | undefined;
  /** events are the EventRecorder's options besides its reporting controller. */
  events?: Omit<EventRecorderOptions, 'reportingController' | 'logger'> | undefined;
  logger?: Logger | undefined;
  metrics?: MetricsSink | undefined;
  /**
   * clientset: `registerClientset`'s options, used when `CLIENTSET` is not registered yet (the
   * throttle defaults to an operator's 20 requests/s, bursts of 30).
   */
  clientset?: RegisterClientsetOptions | undefined;
}

function once<T>(
  create: (container: DependencyContainer) => T,
): (container: DependencyContainer) => T {
  let created: { value: T } | undefined;
  return (container) => (created ??= { value: create(container) }).value;
}

function registerDefault<T>(
  container: DependencyContainer,
  token: InjectionToken<T>,
  value: T,
): void {
  if (!container.isRegistered(token, true)) container.register(token, { useValue: value });
}

/**
 * registerRuntime wires @k/runtime into `container` (the caller's; never tsyringe's global one):
 * the client layers through `registerClientset` unless `CLIENTSET` is registered, the
 * `RUNTIME_LOGGER`, `METRICS_SINK` and `RATE_LIMITER_FACTORY` defaults unless registered (here
 * or in a parent), and, each made once, `LEASE_CLIENT`, `MANAGER`, `INFORMER_FACTORY` and
 * `EVENT_RECORDER`. Resolving `MANAGER` calls every `CONTROLLER_SETUP` with it; controllers it
 * builds get the container's logger (default: JSON lines on stderr), metrics and a rate limiter
 * from the factory. The Manager owns the clientset: it flushes the recorder, then closes the
 * clientset, at shutdown. Registering twice is an error. Uses no
 * decorators and no runtime import of tsyringe: the application loads `reflect-metadata` and
 * tsyringe itself.
 */
export function registerRuntime(
  container: DependencyContainer,
  options: RegisterRuntimeOptions,
): DependencyContainer {
  if (typeof options?.name !== 'string' || options.name === '') {
    throw new RuntimeError('ERR_RUNTIME_INVALID_ARGUMENT', 'registerRuntime needs a name');
  }
  if (container.isRegistered(MANAGER, false)) {
    throw new RuntimeError(
      'ERR_RUNTIME_CONFIGURATION',
      '@k/runtime is already registered in this container',
    );
  }
  if (!container.isRegistered(CLIENTSET, true)) {
    registerClientset(
      container,
      withDefaults<RegisterClientsetOptions>(
        { throttle: OPERATOR_THROTTLE },
        options.clientset ?? {},
      ),
    );
  }
  registerDefault(container, RUNTIME_LOGGER, options.logger ?? jsonLogger());
  registerDefault(container, METRICS_SINK, options.metrics ?? NOOP_METRICS);
  registerDefault(container, RATE_LIMITER_FACTORY, () => defaultControllerRateLimiter<string>());
  const election = options.leaderElection;
  if (!container.isRegistered(LEASE_CLIENT, true)) {
    container.register(LEASE_CLIENT, {
      useFactory: once((resolver) =>
        resolver.resolve(CLIENTSET).coordinationV1.leases(election?.namespace ?? 'default'),
      ),
    });
  }
  container.register(MANAGER, {
    useFactory: once((resolver) => {
      const logger = resolver.resolve(RUNTIME_LOGGER);
      const metrics = resolver.resolve(METRICS_SINK);
      const manager = new Manager({
        ...options.manager,
        clientset: resolver.resolve(CLIENTSET),
        logger,
        metrics,
        rateLimiter: resolver.resolve(RATE_LIMITER_FACTORY),
        ...(election
          ? {
              leaderElection: {
                ...withoutNamespace(election),
                name: election.name ?? options.name,
                leases: resolver.resolve(LEASE_CLIENT),
              },
            }
          : {}),
      });
      if (resolver.isRegistered(CONTROLLER_SETUP, true)) {
        for (const setup of resolver.resolveAll(CONTROLLER_SETUP)) setup(manager);
      }
      return manager;
    }),
  });
  container.register(INFORMER_FACTORY, {
    useFactory: once((resolver) => resolver.resolve(MANAGER).informers),
  });
  container.register(EVENT_RECORDER, {
    useFactory: once((resolver) => {
      return resolver.resolve(MANAGER).eventRecorder({
        ...options.events,
        reportingController: options.name,
      });
    }),
  });
  return container;
}

/** withoutNamespace drops the Lease's namespace: the Manager gets the Lease client made for it. */
function withoutNamespace<T extends { namespace: string }>(election: T): Omit<T, 'namespace'> {
  const rest: Partial<T> = { ...election };
  delete rest.namespace;
  return rest as Omit<T, 'namespace'>;
}
