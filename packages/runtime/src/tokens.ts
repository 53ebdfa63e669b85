import type { InjectionToken } from 'tsyringe';
import type { EventRecorder } from './events/event-recorder.js';
import type { InformerFactory } from './informer/informer-factory.js';
import type { LeaseClient } from './leader-election/leader-elector.js';
import type { Logger } from './logger.js';
import type { Manager } from './manager/manager.js';
import type { MetricsSink } from './metrics/metrics-sink.js';
import type { WorkqueueRateLimiter } from './workqueue/rate-limiters.js';

/** RUNTIME_LOGGER is the logger of the Manager, its informers and controllers (default: `jsonLogger()`, JSON lines on stderr). */
export const RUNTIME_LOGGER: InjectionToken<Logger> = Symbol.for('@k/runtime.Logger');

/** METRICS_SINK is where the runtime records its metrics (default: nowhere; `@k/runtime/prometheus` for Prometheus). */
export const METRICS_SINK: InjectionToken<MetricsSink> = Symbol.for('@k/runtime.MetricsSink');

/**
 * RATE_LIMITER_FACTORY makes the workqueue rate limiter of each controller the Manager builds
 * (default: client-go's `defaultControllerRateLimiter`). A factory: each queue needs its own.
 */
export const RATE_LIMITER_FACTORY: InjectionToken<() => WorkqueueRateLimiter<string>> = Symbol.for(
  '@k/runtime.RateLimiterFactory',
);

/** LEASE_CLIENT is the leader-election lock: the Leases of the `leaderElection` namespace (default). */
export const LEASE_CLIENT: InjectionToken<LeaseClient> = Symbol.for('@k/runtime.LeaseClient');

/** MANAGER is the process's Manager; it closes the container's clientset at shutdown. */
export const MANAGER: InjectionToken<Manager> = Symbol.for('@k/runtime.Manager');

/** INFORMER_FACTORY is the Manager's shared informer factory. */
export const INFORMER_FACTORY: InjectionToken<InformerFactory> = Symbol.for(
  '@k/runtime.InformerFactory',
);

/** EVENT_RECORDER records Events as the operator (`reportingController`: the `name` given); the Manager closes it first at shutdown. */
export const EVENT_RECORDER: InjectionToken<EventRecorder> = Symbol.for('@k/runtime.EventRecorder');

/**
 * CONTROLLER_SETUP is a multi-registration (controller-runtime's `SetupWithManager`): each value
 * is called with the Manager when the Manager is first resolved, to add its controllers
 * (`manager.controller(name).for(…).complete(…)`).
 */
export const CONTROLLER_SETUP: InjectionToken<(manager: Manager) => void> = Symbol.for(
  '@k/runtime.ControllerSetup',
);
