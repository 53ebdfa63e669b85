import { TransportError } from '../errors.js';

/**
 * The argument checks of @k/transport's public entry points, for callers in plain JavaScript
 * (or TypeScript with `any`): each throws a `TransportError` with code
 * `ERR_TRANSPORT_INVALID_ARGUMENT` whose message names the entry point, the argument and what
 * to pass, and describes what was passed by its type only (a string may be a token).
 */

/** describeValue names the kind of `value` without showing it (numbers and booleans are shown). */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'undefined':
      return 'undefined';
    case 'string':
      return value === '' ? 'an empty string' : 'a string';
    case 'number':
      return Number.isNaN(value) ? 'NaN' : `the number ${value}`;
    case 'boolean':
      return String(value);
    case 'function':
      return 'a function';
    case 'object':
      return 'an object';
    default:
      return `a ${typeof value}`;
  }
}

/** invalidArgument builds the error: `<where>: <what> must be <expected>, not <value>`. */
export function invalidArgument(
  where: string,
  what: string,
  expected: string,
  value: unknown,
): TransportError {
  return new TransportError(
    'ERR_TRANSPORT_INVALID_ARGUMENT',
    `${where}: ${what} must be ${expected}, not ${describeValue(value)}`,
  );
}

/** isRecord reports whether `value` is a non-null object that is not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** expectRecord throws unless `value` is a non-null, non-array object. */
export function expectRecord<T>(
  value: T,
  where: string,
  what: string,
  expected = 'an object',
): asserts value is T & Record<string, unknown> {
  if (!isRecord(value)) throw invalidArgument(where, what, expected, value);
}

/** expectOptions throws unless `value` is undefined or an object; returns it or `{}`. */
export function expectOptions(value: unknown, where: string, what = 'options'): object {
  if (value === undefined) return {};
  expectRecord(value, where, what, 'an object or undefined');
  return value;
}

/** expectString throws unless `value` is a string (non-empty unless `allowEmpty`). */
export function expectString(
  value: unknown,
  where: string,
  what: string,
  allowEmpty = false,
): asserts value is string {
  if (typeof value !== 'string' || (!allowEmpty && value === '')) {
    throw invalidArgument(where, what, allowEmpty ? 'a string' : 'a non-empty string', value);
  }
}

/** expectOptionalString throws unless `value` is undefined or a string. */
export function expectOptionalString(
  value: unknown,
  where: string,
  what: string,
): asserts value is string | undefined {
  if (value !== undefined && typeof value !== 'string') {
    throw invalidArgument(where, what, 'a string or undefined', value);
  }
}

/** expectOptionalFunction throws unless `value` is undefined or a function. */
export function expectOptionalFunction(value: unknown, where: string, what: string): void {
  if (value !== undefined && typeof value !== 'function') {
    throw invalidArgument(where, what, 'a function or undefined', value);
  }
}

/** expectOptionalBoolean throws unless `value` is undefined or a boolean. */
export function expectOptionalBoolean(value: unknown, where: string, what: string): void {
  if (value !== undefined && typeof value !== 'boolean') {
    throw invalidArgument(where, what, 'true, false or undefined', value);
  }
}

/**
 * expectDuration throws unless `value` is undefined or a number of milliseconds >= 0
 * (`Infinity` allowed); returns it, or `fallback` when undefined.
 */
export function expectDuration(
  value: unknown,
  where: string,
  what: string,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
    throw invalidArgument(where, what, 'a number of milliseconds >= 0 or undefined', value);
  }
  return value;
}

/** expectOptionalSignal throws unless `value` is undefined or an AbortSignal. */
export function expectOptionalSignal(value: unknown, where: string, what: string): void {
  const signal = value as { aborted?: unknown; addEventListener?: unknown } | undefined;
  if (
    value !== undefined &&
    !(
      isRecord(value) &&
      typeof signal?.aborted === 'boolean' &&
      typeof signal.addEventListener === 'function'
    )
  ) {
    throw invalidArgument(where, what, 'an AbortSignal or undefined', value);
  }
}

/** expectOptionalStream throws unless `value` is undefined, null or has a `write` method. */
export function expectOptionalStream(value: unknown, where: string, what: string): void {
  if (
    value !== undefined &&
    value !== null &&
    !(isRecord(value) && typeof value.write === 'function')
  ) {
    throw invalidArgument(where, what, 'a writable stream, null or undefined', value);
  }
}

/** expectOptionalBytes throws unless `value` is undefined or a Uint8Array (a Buffer is one). */
export function expectOptionalBytes(value: unknown, where: string, what: string): void {
  if (value !== undefined && !(value instanceof Uint8Array)) {
    throw invalidArgument(where, what, 'a Uint8Array (or Buffer) or undefined', value);
  }
}

/** expectOptionalStringArray throws unless `value` is undefined or an array of strings. */
export function expectOptionalStringArray(value: unknown, where: string, what: string): void {
  if (
    value !== undefined &&
    !(Array.isArray(value) && value.every((item) => typeof item === 'string'))
  ) {
    throw invalidArgument(where, what, 'an array of strings or undefined', value);
  }
}

/** expectTlsSettings checks `settings` has the shape of @k/config's `TlsSettings`. */
export function expectTlsSettings(settings: unknown, where: string, what: string): void {
  expectRecord(settings, where, what, "an object (a ResolvedConfig's tls settings)");
  expectOptionalBoolean(settings.insecure, where, `${what}.insecure`);
  for (const name of ['caData', 'certData', 'keyData']) {
    expectOptionalBytes(settings[name], where, `${what}.${name}`);
  }
  for (const name of ['caFile', 'certFile', 'keyFile', 'serverName']) {
    expectOptionalString(settings[name], where, `${what}.${name}`);
  }
}

/** The kinds of @k/config's `AuthMethod`. */
const AUTH_KINDS = ['none', 'token', 'basic', 'exec', 'auth-provider'];

/** expectAuthMethod checks `auth` is one of @k/config's `AuthMethod`s. */
export function expectAuthMethod(auth: unknown, where: string, what: string): void {
  expectRecord(auth, where, what, 'an object (a ResolvedConfig\'s auth, e.g. { kind: "none" })');
  if (typeof auth.kind !== 'string' || !AUTH_KINDS.includes(auth.kind)) {
    throw invalidArgument(where, `${what}.kind`, `one of ${AUTH_KINDS.join(', ')}`, auth.kind);
  }
}

/**
 * expectResolvedConfig checks `config` has the shape of @k/config's `ResolvedConfig` (what
 * `resolveConfig` returns): a server URL string, tls settings and an auth method.
 */
export function expectResolvedConfig<T>(
  config: T,
  where: string,
  what = 'config',
): asserts config is T & Record<string, unknown> {
  expectRecord(config, where, what, "a ResolvedConfig (what @k/config's resolveConfig returns)");
  expectString(config.server, where, `${what}.server`);
  expectTlsSettings(config.tls, where, `${what}.tls`);
  expectAuthMethod(config.auth, where, `${what}.auth`);
  expectOptionalString(config.proxyUrl, where, `${what}.proxyUrl`);
  expectOptionalBoolean(config.disableCompression, where, `${what}.disableCompression`);
  if (config.impersonation !== undefined) {
    expectRecord(config.impersonation, where, `${what}.impersonation`, 'an object or undefined');
  }
}

/** expectAuthKind throws unless `config.auth.kind` is `kind` (config already checked). */
export function expectAuthKind(
  config: Record<string, unknown>,
  kind: string,
  where: string,
  what = 'config',
): void {
  const actual = (config.auth as { kind: string }).kind;
  if (actual !== kind) {
    throw new TransportError(
      'ERR_TRANSPORT_INVALID_ARGUMENT',
      `${where}: ${what}.auth.kind must be "${kind}", not "${actual}" (this provider serves ${kind} users only)`,
    );
  }
}

/** expectFactoryContext checks a `CredentialProviderContext`: a resolved config and a clock. */
export function expectFactoryContext<T>(
  context: T,
  where: string,
): asserts context is T & { config: Record<string, unknown> } {
  expectRecord(context, where, 'context', 'a CredentialProviderContext ({ config, now })');
  expectResolvedConfig(context.config, where, 'context.config');
  if (typeof context.now !== 'function') {
    throw invalidArgument(where, 'context.now', 'a function returning milliseconds', context.now);
  }
  expectOptionalFunction(
    context.persistAuthProviderConfig,
    where,
    'context.persistAuthProviderConfig',
  );
}

/** expectFactories checks an array of `CredentialProviderFactory` ({ kind, create }). */
export function expectFactories(factories: unknown, where: string, what: string): void {
  if (!Array.isArray(factories)) {
    throw invalidArgument(where, what, 'an array of credential provider factories', factories);
  }
  factories.forEach((factory: unknown, index) => {
    if (
      !isRecord(factory) ||
      typeof factory.kind !== 'string' ||
      typeof factory.create !== 'function'
    ) {
      throw invalidArgument(
        where,
        `${what}[${index}]`,
        'a credential provider factory ({ kind: string, create(context) })',
        factory,
      );
    }
  });
}

/** expectOptionalInteger throws unless `value` is undefined or an integer >= `minimum`. */
export function expectOptionalInteger(
  value: unknown,
  where: string,
  what: string,
  minimum: number,
): void {
  if (value !== undefined && !(Number.isInteger(value) && (value as number) >= minimum)) {
    throw invalidArgument(where, what, `an integer >= ${minimum} or undefined`, value);
  }
}

/** expectCredentialRequest checks the argument of `getCredentials`: `{ signal? }`. */
export function expectCredentialRequest(request: unknown, where: string): void {
  expectRecord(request, where, 'request', 'an object ({ signal? }) or undefined');
  expectOptionalSignal(request.signal, where, 'request.signal');
}
