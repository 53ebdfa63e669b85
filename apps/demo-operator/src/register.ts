import type { ResolvedConfig } from '@k/config';
import { CLIENTSET, registerClientset } from '@k/clientset/di';
import { registerRest, withKubeconfigPersister } from '@k/rest/di';
import { registerTransport } from '@k/transport/di';
import type { Logger } from '@k/runtime';
import { EVENT_RECORDER, MANAGER, registerRuntime } from '@k/runtime/di';
import { restClientInstrumentation, type MetricsSink } from '@k/runtime/metrics';
import { PrometheusMetrics } from '@k/runtime/prometheus';
import type { DependencyContainer } from 'tsyringe';
import type { OperatorFlags } from './operator-flags.js';
import { LEASE_NAME } from './names.js';
import { WebAppOperator } from './operator.js';
import { OPERATOR_FLAGS, OPERATOR_LOGGER, WEBAPP_OPERATOR } from './tokens.js';

/** RegisterOperatorOptions are what {@link registerOperator} wires: the connection, the flags and the logger. */
export interface RegisterOperatorOptions {
  config: ResolvedConfig;
  flags: OperatorFlags;
  logger: Logger;
  /** metrics is where everything is measured (default: a new prom-client registry, served at `/metrics`). */
  metrics?: MetricsSink;
}

/** REPORTING_CONTROLLER names the operator in its Events. */
export const REPORTING_CONTROLLER = 'apps.k.example/demo-operator';

function once<T>(create: (container: DependencyContainer) => T) {
  let made: { value: T } | undefined;
  return (container: DependencyContainer): T => (made ??= { value: create(container) }).value;
}

/**
 * registerOperator wires the whole stack into `container`, one layer at a time: @k/transport
 * for `config` with the operator's user agent (`demo-operator/<identity>`), @k/rest over it with
 * one token bucket at the flags' QPS and burst, @k/clientset over that, @k/runtime (the Manager
 * with its server and, unless turned off, leader election on the Lease `demo-operator` of the
 * operator's namespace; the EventRecorder), all measuring into one Prometheus registry (the
 * runtime's metrics and client-go's `rest_client_*` of every request and throttle wait), then `OPERATOR_FLAGS`, `OPERATOR_LOGGER` and
 * `WEBAPP_OPERATOR`, each made once. Resolve `WEBAPP_OPERATOR` before starting its `manager`.
 */
export function registerOperator(
  container: DependencyContainer,
  { config, flags, logger, metrics }: RegisterOperatorOptions,
): DependencyContainer {
  const { settings } = flags;
  const sink = metrics ?? new PrometheusMetrics();
  // client-go's rest_client_* of every request and of every wait in the throttle.
  const instrumentation = restClientInstrumentation({ metrics: sink, logger });
  registerTransport(container, {
    config,
    ...withKubeconfigPersister(config, {
      userAgent: `demo-operator/${settings.identity}`,
      interceptors: instrumentation.transport.interceptors,
    }),
  });
  registerRest(container, {
    throttle: { qps: flags.qps, burst: flags.burst },
    onThrottle: instrumentation.onThrottle,
  });
  registerClientset(container);
  registerRuntime(container, {
    name: REPORTING_CONTROLLER,
    manager: { probes: settings.probes, metricsServer: settings.metricsServer },
    ...(settings.leaderElection
      ? {
          leaderElection: {
            namespace: settings.operatorNamespace,
            name: LEASE_NAME,
            identity: settings.identity,
            ...(settings.leaseDurationMs ? { leaseDurationMs: settings.leaseDurationMs } : {}),
            ...(settings.renewDeadlineMs ? { renewDeadlineMs: settings.renewDeadlineMs } : {}),
            ...(settings.retryPeriodMs ? { retryPeriodMs: settings.retryPeriodMs } : {}),
            onNewLeader: (identity: string) => logger.info('leader', { identity }),
          },
        }
      : {}),
    events: { reportingInstance: settings.identity },
    logger,
    metrics: sink,
  });
  container.register(OPERATOR_FLAGS, { useValue: flags });
  container.register(OPERATOR_LOGGER, { useValue: logger });
  container.register(WEBAPP_OPERATOR, {
    useFactory: once(
      (resolver) =>
        new WebAppOperator(
          resolver.resolve(MANAGER),
          resolver.resolve(CLIENTSET),
          resolver.resolve(EVENT_RECORDER),
          resolver.resolve(OPERATOR_FLAGS).settings,
          resolver.resolve(OPERATOR_LOGGER),
        ),
    ),
  });
  return container;
}
