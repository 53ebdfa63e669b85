import { ClientsetError } from '../errors.js';
import { isPlainObject, type ArgumentRule } from './argument-rules.js';

/**
 * describeValue names the kind of `value` for an error message ("undefined", "a number",
 * "an array"), never its content: the value can be a secret.
 */
function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'undefined':
      return 'undefined';
    case 'string':
      return value === '' ? 'an empty string' : 'a string';
    case 'number':
      return Number.isNaN(value) ? 'NaN' : 'a number';
    case 'object':
      return isPlainObject(value) ? 'an object' : `a ${value.constructor?.name ?? 'object'}`;
    default:
      return `a ${typeof value}`;
  }
}

/**
 * ArgumentContext says where a check runs: `where` starts the message, `resource` goes on the
 * error, `code` is `ERR_CLIENTSET_INVALID_ARGUMENT` unless the argument is the object a call sends
 * (`ERR_CLIENTSET_INVALID_OBJECT`).
 */
export interface ArgumentContext {
  /** where names the call, e.g. `configmaps apply` or `createClientset`. */
  readonly where: string;
  readonly resource?: string;
  readonly code?: 'ERR_CLIENTSET_INVALID_ARGUMENT' | 'ERR_CLIENTSET_INVALID_OBJECT';
}

function fail(context: ArgumentContext, name: string, expected: string, value: unknown): never {
  throw new ClientsetError(
    context.code ?? 'ERR_CLIENTSET_INVALID_ARGUMENT',
    `${context.where}: ${name} must be ${expected}, got ${describeValue(value)}`,
    context.resource === undefined ? {} : { resource: context.resource },
  );
}

/**
 * checkArgument throws a `ClientsetError` (`ERR_CLIENTSET_INVALID_ARGUMENT`, or the context's code) unless
 * `rule` accepts `value`; the message names the call, the argument and what to pass.
 */
export function checkArgument(
  value: unknown,
  rule: ArgumentRule,
  name: string,
  context: ArgumentContext,
): void {
  if (!rule.test(value)) fail(context, name, rule.expected, value);
}

/** OptionRules map option names to their rules; `required` lists the options that must be set. */
export interface OptionRules {
  readonly rules: Readonly<Record<string, ArgumentRule>>;
  readonly required?: readonly string[];
}

/**
 * checkOptions checks an options argument (or another argument of named fields, called
 * `argument` in the message): undefined (when nothing is required) or a plain object whose
 * fields named in `rules` are undefined or accepted by their rule, and whose `required` fields
 * are set. Fields it has no rule for are left alone (the types name them). Throws
 * `ERR_CLIENTSET_INVALID_ARGUMENT` naming the first field that fails.
 */
export function checkOptions(
  options: unknown,
  { rules, required = [] }: OptionRules,
  context: ArgumentContext,
  argument = 'options',
): void {
  if (options === undefined && required.length === 0) return;
  if (!isPlainObject(options)) {
    const needs =
      required.length === 0
        ? ''
        : ` with ${required.slice(0, -1).join(', ')}${required.length > 1 ? ' and ' : ''}${required.at(-1)}`;
    fail(context, argument, `an object${needs}`, options);
  }
  for (const name of required) {
    if (options[name] === undefined) {
      const rule = rules[name];
      fail(context, `${argument}.${name}`, rule ? rule.expected : 'set', undefined);
    }
  }
  for (const [name, value] of Object.entries(options)) {
    const rule = rules[name];
    if (value !== undefined && rule && !rule.test(value)) {
      fail(context, `${argument}.${name}`, rule.expected, value);
    }
  }
}
