import type { ResolvedConfig } from '@k/config';
import { CLIENTSET, registerClientset } from '@k/clientset/di';
import { registerRest, withKubeconfigPersister } from '@k/rest/di';
import { registerTransport } from '@k/transport/di';
import type { Logger } from '@k/runtime';
import type { DependencyContainer } from 'tsyringe';
import type { OperatorFlags } from './operator-flags.js';
import { WebAppOperator } from './operator.js';
import { OPERATOR_FLAGS, OPERATOR_LOGGER, WEBAPP_OPERATOR } from './tokens.js';

/** RegisterOperatorOptions are what {@link registerOperator} wires: the connection, the flags and the logger. */
export interface RegisterOperatorOptions {
  config: ResolvedConfig;
  flags: OperatorFlags;
  logger: Logger;
}

function once<T>(create: (container: DependencyContainer) => T) {
  let made: { value: T } | undefined;
  return (container: DependencyContainer): T => (made ??= { value: create(container) }).value;
}

/**
 * registerOperator wires the whole stack into `container`, one layer at a time: @k/transport
 * for `config` with the operator's user agent (`demo-operator/<identity>`), @k/rest over it with
 * one token bucket at the flags' QPS and burst, @k/clientset over that, then `OPERATOR_FLAGS`,
 * `OPERATOR_LOGGER` and `WEBAPP_OPERATOR`, each made once.
 */
export function registerOperator(
  container: DependencyContainer,
  { config, flags, logger }: RegisterOperatorOptions,
): DependencyContainer {
  registerTransport(container, {
    config,
    ...withKubeconfigPersister(config, { userAgent: `demo-operator/${flags.settings.identity}` }),
  });
  registerRest(container, { throttle: { qps: flags.qps, burst: flags.burst } });
  registerClientset(container);
  container.register(OPERATOR_FLAGS, { useValue: flags });
  container.register(OPERATOR_LOGGER, { useValue: logger });
  container.register(WEBAPP_OPERATOR, {
    useFactory: once(
      (resolver) =>
        new WebAppOperator(resolver.resolve(CLIENTSET), resolver.resolve(OPERATOR_FLAGS).settings, {
          logger: resolver.resolve(OPERATOR_LOGGER),
        }),
    ),
  });
  return container;
}
