import type { ResolvedConfig } from '@k/config';
import { CLIENTSET, registerClientset } from '@k/clientset/di';
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
 * registerOperator wires the whole stack into `container`: @k/clientset (and through it @k/rest
 * and @k/transport) for `config`, throttled at the flags' QPS and burst with the operator's user
 * agent, then `OPERATOR_FLAGS`, `OPERATOR_LOGGER` and `WEBAPP_OPERATOR`, each made once.
 */
export function registerOperator(
  container: DependencyContainer,
  { config, flags, logger }: RegisterOperatorOptions,
): DependencyContainer {
  registerClientset(container, {
    config,
    throttle: { qps: flags.qps, burst: flags.burst },
    transport: { userAgent: `demo-operator/${flags.settings.identity}` },
  });
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
