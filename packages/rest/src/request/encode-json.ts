/** Frame is one array or object being written by {@link encodeJson}. */
interface Frame {
  readonly value: object;
  readonly keys: readonly string[] | undefined; // undefined for an array
  index: number;
  wrote: boolean;
}

/** toJsonValue applies `toJSON` and unboxes primitives, as `JSON.stringify` does. */
function toJsonValue(value: unknown, key: string): unknown {
  if (typeof value === 'object' && value !== null) {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return (toJSON as (key: string) => unknown).call(value, key);
    if (value instanceof Number || value instanceof String || value instanceof Boolean) {
      return value.valueOf();
    }
  }
  return value;
}

/** scalar is the JSON text of a non-container value, or undefined when JSON has none for it. */
function scalar(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'object':
      return value === null ? 'null' : undefined;
    default:
      return undefined; // undefined, functions and symbols have no JSON text
  }
}

/**
 * encodeJson is `JSON.stringify(value)` (no replacer, no indentation) without recursion, for
 * objects nested deeper than the stack lets `JSON.stringify` go (about 4,000 levels; the API
 * server stores custom resources 10,000 deep). Same output, same errors for cycles and BigInts.
 */
export function encodeJson(value: unknown): string | undefined {
  const parts: string[] = [];
  const stack: Frame[] = [];
  const open = new Set<object>();
  /** write writes `item`, or opens a frame for it; false when it has no JSON text. */
  const write = (item: unknown, key: string): boolean => {
    const json = toJsonValue(item, key);
    const text = scalar(json);
    if (text !== undefined) {
      parts.push(text);
      return true;
    }
    if (typeof json !== 'object' || json === null) return false;
    if (open.has(json)) throw new TypeError('Converting circular structure to JSON');
    open.add(json);
    const isArray = Array.isArray(json);
    parts.push(isArray ? '[' : '{');
    stack.push({
      value: json,
      keys: isArray ? undefined : Object.keys(json),
      index: 0,
      wrote: false,
    });
    return true;
  };
  if (!write(value, '')) return undefined;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.keys === undefined) {
      const array = frame.value as unknown[];
      if (frame.index === array.length) {
        parts.push(']');
        open.delete(stack.pop()!.value);
        continue;
      }
      const index = frame.index++;
      if (index > 0) parts.push(',');
      if (!write(array[index], String(index))) parts.push('null');
      continue;
    }
    if (frame.index === frame.keys.length) {
      parts.push('}');
      open.delete(stack.pop()!.value);
      continue;
    }
    const key = frame.keys[frame.index++]!;
    const item = (frame.value as Record<string, unknown>)[key];
    const mark = parts.length;
    parts.push(frame.wrote ? ',' : '', JSON.stringify(key), ':');
    if (write(item, key)) frame.wrote = true;
    else parts.length = mark; // a member without JSON text is left out
  }
  return parts.join('');
}
