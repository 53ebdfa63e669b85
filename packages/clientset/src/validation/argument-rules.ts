/**
 * ArgumentRule is what a runtime argument check accepts: `test` decides, `expected` says what to
 * pass in the error ("a non-empty string"). Rules exist for plain-JavaScript callers, whom the
 * compiler does not stop from passing `undefined`, a number for a name or a string for an object.
 */
export interface ArgumentRule {
  readonly expected: string;
  readonly test: (value: unknown) => boolean;
}

/** isPlainObject is true for `{…}` values: not null, an array, a function or a class's instance such as a Date. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** STRING accepts any string, `''` included. */
export const STRING: ArgumentRule = {
  expected: 'a string',
  test: (value) => typeof value === 'string',
};

/** NON_EMPTY_STRING accepts a string with at least one character. */
export const NON_EMPTY_STRING: ArgumentRule = {
  expected: 'a non-empty string',
  test: (value) => typeof value === 'string' && value !== '',
};

/** BOOLEAN accepts `true` and `false`. */
export const BOOLEAN: ArgumentRule = {
  expected: 'true or false',
  test: (value) => typeof value === 'boolean',
};

/** NON_NEGATIVE_INTEGER accepts 0, 1, 2, … */
export const NON_NEGATIVE_INTEGER: ArgumentRule = {
  expected: 'an integer of 0 or more',
  test: (value) => Number.isSafeInteger(value) && (value as number) >= 0,
};

/** NON_NEGATIVE_NUMBER accepts a finite number of 0 or more. */
export const NON_NEGATIVE_NUMBER: ArgumentRule = {
  expected: 'a number of 0 or more',
  test: (value) => typeof value === 'number' && Number.isFinite(value) && value >= 0,
};

/** PLAIN_OBJECT accepts a `{…}` object. */
export const PLAIN_OBJECT: ArgumentRule = { expected: 'an object', test: isPlainObject };

/** OBJECT accepts any object: a `{…}` or a class's instance, not null or an array. */
export const OBJECT: ArgumentRule = {
  expected: 'an object',
  test: (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
};

/** FUNCTION accepts a function. */
export const FUNCTION: ArgumentRule = {
  expected: 'a function',
  test: (value) => typeof value === 'function',
};

/** ABORT_SIGNAL accepts an `AbortSignal` (`AbortController.signal`, `AbortSignal.timeout(ms)`). */
export const ABORT_SIGNAL: ArgumentRule = {
  expected: 'an AbortSignal',
  test: (value) => value instanceof AbortSignal,
};

/** REST_CLIENT accepts a `RestClient` of @k/rest (or anything with its methods and `server` URL). */
export const REST_CLIENT: ArgumentRule = {
  expected: 'a RestClient from @k/rest',
  test: (value) =>
    withMethods('', 'get', 'put', 'post', 'patch', 'delete', 'apply').test(value) &&
    typeof (value as { server?: { origin?: unknown } }).server?.origin === 'string',
};

/** oneOf accepts exactly the values listed. */
export function oneOf(...values: readonly unknown[]): ArgumentRule {
  const names = values.map((value) => (typeof value === 'string' ? `'${value}'` : String(value)));
  const expected =
    names.length === 1 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
  return { expected, test: (value) => values.includes(value) };
}

/** anyOf accepts what any of `rules` accepts. */
export function anyOf(...rules: readonly ArgumentRule[]): ArgumentRule {
  return {
    expected: rules.map((rule) => rule.expected).join(' or '),
    test: (value) => rules.some((rule) => rule.test(value)),
  };
}

/** withMethods accepts an object (or function) that has every method named: a duck-typed interface. */
export function withMethods(expected: string, ...methods: readonly string[]): ArgumentRule {
  return {
    expected,
    test: (value) =>
      (typeof value === 'object' || typeof value === 'function') &&
      value !== null &&
      methods.every((method) => typeof (value as Record<string, unknown>)[method] === 'function'),
  };
}

/** DISCOVERY_CACHE accepts a `DiscoveryCache`: an object with `get`, `set` and `delete`. */
export const DISCOVERY_CACHE: ArgumentRule = withMethods(
  'a DiscoveryCache (get, set and delete)',
  'get',
  'set',
  'delete',
);
