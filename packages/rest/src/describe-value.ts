/**
 * describeValue names what a plain JavaScript caller passed instead of the expected type, for
 * argument errors: its type, and the value itself only for numbers and booleans (a string may
 * be a secret, so never its content).
 */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'undefined':
      return 'undefined';
    case 'number':
    case 'boolean':
    case 'bigint':
      return `${typeof value} ${String(value)}`;
    case 'string':
      return 'a string';
    case 'function':
      return 'a function';
    case 'symbol':
      return 'a symbol';
    default: {
      const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
      return typeof name === 'string' && name !== '' && name !== 'Object'
        ? `a ${name}`
        : 'an object';
    }
  }
}
