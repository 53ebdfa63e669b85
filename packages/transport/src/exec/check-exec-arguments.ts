import {
  expectAuthKind,
  expectDuration,
  expectOptionalBoolean,
  expectOptionalFunction,
  expectOptionalStream,
  expectOptionalString,
  expectOptionalStringArray,
  expectOptions,
  expectRecord,
  expectResolvedConfig,
  expectString,
  invalidArgument,
  isRecord,
} from '../checks/argument-checks.js';

/** checkExecConfig checks a resolved config whose user runs an exec plugin. */
export function checkExecConfig(config: unknown, where: string, what: string): void {
  expectResolvedConfig(config, where, what);
  expectAuthKind(config, 'exec', where, what);
  const auth = config.auth as Record<string, unknown>;
  const exec = auth.exec;
  expectRecord(exec, where, `${what}.auth.exec`, 'an object (the exec plugin settings)');
  expectString(exec.command, where, `${what}.auth.exec.command`);
  expectString(exec.apiVersion, where, `${what}.auth.exec.apiVersion`);
  expectOptionalStringArray(exec.args, where, `${what}.auth.exec.args`);
  if (
    exec.env !== undefined &&
    !(
      Array.isArray(exec.env) &&
      exec.env.every(
        (variable: unknown) =>
          isRecord(variable) &&
          typeof variable.name === 'string' &&
          typeof variable.value === 'string',
      )
    )
  ) {
    throw invalidArgument(
      where,
      `${what}.auth.exec.env`,
      'an array of { name: string, value: string } or undefined',
      exec.env,
    );
  }
  expectOptionalString(exec.installHint, where, `${what}.auth.exec.installHint`);
  expectOptionalString(exec.interactiveMode, where, `${what}.auth.exec.interactiveMode`);
  expectOptionalBoolean(exec.provideClusterInfo, where, `${what}.auth.exec.provideClusterInfo`);
}

/** checkExecOptions checks `ExecCredentialProviderOptions`. */
export function checkExecOptions(options: unknown, where: string): void {
  const checked = expectOptions(options, where) as Record<string, unknown>;
  expectDuration(checked.timeoutMs, where, 'options.timeoutMs', 0);
  expectDuration(checked.expiryLeewayMs, where, 'options.expiryLeewayMs', 0);
  if (checked.cacheDirectory !== null) {
    expectOptionalString(checked.cacheDirectory, where, 'options.cacheDirectory');
  }
  expectOptionalStream(checked.stderr, where, 'options.stderr');
  expectOptionalFunction(checked.isTerminal, where, 'options.isTerminal');
  if (
    checked.stdinUnavailable !== undefined &&
    typeof checked.stdinUnavailable !== 'boolean' &&
    typeof checked.stdinUnavailable !== 'string'
  ) {
    throw invalidArgument(
      where,
      'options.stdinUnavailable',
      'a boolean, a message string or undefined',
      checked.stdinUnavailable,
    );
  }
  if (checked.environment !== undefined) {
    expectRecord(checked.environment, where, 'options.environment', 'an object (like process.env)');
  }
}
