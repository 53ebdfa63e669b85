import 'reflect-metadata';
import { inferConfig } from '@k/config';
import { CLIENTSET } from '@k/clientset/di';
import { container as rootContainer } from 'tsyringe';
import { OperatorError } from './errors.js';
import { OPERATOR_USAGE, parseOperatorFlags } from './operator-flags.js';
import { registerOperator } from './register.js';
import { TextLogger } from './text-logger.js';
import { WEBAPP_OPERATOR } from './tokens.js';

/**
 * main runs the operator (`argv` without node and the script) until SIGTERM or SIGINT, then
 * drains, releases its Lease and resolves with the exit code: 0 after a clean stop, 1 after a
 * failure (leadership lost included: restart me), 2 for wrong usage. A second signal kills it.
 */
export async function main(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  let flags;
  try {
    flags = parseOperatorFlags(argv, env);
  } catch (error) {
    if (!OperatorError.isInstance(error)) throw error;
    process.stderr.write(`demo-operator: ${error.message}\n${OPERATOR_USAGE}`);
    return 2;
  }
  if (!flags) {
    process.stdout.write(OPERATOR_USAGE);
    return 0;
  }
  const logger = new TextLogger((line) => process.stderr.write(line), flags.logLevel);
  const container = rootContainer.createChildContainer();
  try {
    const config = await inferConfig({
      ...(flags.kubeconfig ? { explicitPath: flags.kubeconfig } : {}),
      overrides: flags.context ? { context: flags.context } : {},
    });
    registerOperator(container, { config, flags, logger });
    const operator = container.resolve(WEBAPP_OPERATOR);
    logger.info('starting', {
      server: config.server,
      identity: flags.settings.identity,
      namespace: flags.settings.watchNamespace || '(all)',
      operatorNamespace: flags.settings.operatorNamespace,
      leaderElection: flags.settings.leaderElection,
    });
    await operator.manager.run();
    return 0;
  } catch (error) {
    logger.error('failed', {
      error: error instanceof Error ? error.message : String(error),
      ...(error instanceof Error && 'code' in error ? { code: error.code } : {}),
    });
    return 1;
  } finally {
    if (container.isRegistered(CLIENTSET, true)) await container.resolve(CLIENTSET).close();
  }
}
