import { setOwn } from '../internal/set-own.js';
/**
 * JsonValue is a value JSON can carry: what `JSON.parse` gives, without `undefined` anywhere.
 */
export type JsonValue =
  null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** JsonObject is a JSON object. */
type JsonObject = { [key: string]: JsonValue };

/**
 * JsonPatchOperation is one operation of an RFC 6902 JSON Patch, with an RFC 6901 pointer as
 * `path` (`''` is the whole document).
 */
export type JsonPatchOperation =
  | { readonly op: 'add' | 'replace'; readonly path: string; readonly value: JsonValue }
  | { readonly op: 'remove'; readonly path: string };

/** escapePointerToken escapes one RFC 6901 reference token: `~` as `~0`, then `/` as `~1`. */
function escapePointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

function isJsonObject(value: JsonValue): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Task is one pair still to compare, or an operation already decided, in document order. */
type Task =
  | { readonly from: JsonValue; readonly to: JsonValue; readonly path: string }
  | { readonly operation: JsonPatchOperation };

/**
 * createJsonPatch computes an RFC 6902 JSON Patch that turns `from` into `to`: objects are
 * compared key by key (`remove` of the keys gone, then the new object's keys in its order: `add`
 * or a comparison of the values), arrays index by index (a comparison at each common index, `add`
 * of new elements at the end, `remove` of the extra ones from the last down), anything else that
 * differs is replaced whole (`path: ''` for the root). The walk uses an explicit stack, so any
 * depth is fine, and its cost is linear in the size of the two values: it does not search for
 * moved array elements (no O(n·m) diff that a hostile pair of arrays could exploit), so an element
 * inserted at the front of an array replaces every element after it. The operations apply one
 * after another in the order given; their `value`s are `to`'s own subtrees, not copies. Both
 * values must be JSON (no `undefined`, no cycles); keys are own keys only, so a `__proto__` key is
 * data like any other.
 */
export function createJsonPatch(from: JsonValue, to: JsonValue): JsonPatchOperation[] {
  const operations: JsonPatchOperation[] = [];
  const stack: Task[] = [{ from, to, path: '' }];
  for (let task = stack.pop(); task !== undefined; task = stack.pop()) {
    if ('operation' in task) {
      operations.push(task.operation);
      continue;
    }
    const { from: before, to: after, path } = task;
    if (before === after) continue;
    // Tasks are pushed in reverse so that they pop, and their operations come out, in document order.
    const tasks: Task[] = [];
    if (Array.isArray(before) && Array.isArray(after)) {
      const common = Math.min(before.length, after.length);
      for (let index = 0; index < common; index++) {
        tasks.push({
          from: before[index] as JsonValue,
          to: after[index] as JsonValue,
          path: `${path}/${index}`,
        });
      }
      for (let index = common; index < after.length; index++) {
        tasks.push({
          operation: { op: 'add', path: `${path}/${index}`, value: after[index] as JsonValue },
        });
      }
      for (let index = before.length - 1; index >= common; index--) {
        tasks.push({ operation: { op: 'remove', path: `${path}/${index}` } });
      }
    } else if (isJsonObject(before) && isJsonObject(after)) {
      for (const key of Object.keys(before)) {
        if (!Object.hasOwn(after, key)) {
          tasks.push({ operation: { op: 'remove', path: `${path}/${escapePointerToken(key)}` } });
        }
      }
      for (const key of Object.keys(after)) {
        const keyPath = `${path}/${escapePointerToken(key)}`;
        const value = after[key] as JsonValue;
        if (Object.hasOwn(before, key))
          tasks.push({ from: before[key] as JsonValue, to: value, path: keyPath });
        else tasks.push({ operation: { op: 'add', path: keyPath, value } });
      }
    } else {
      // Equal scalars were skipped above: this differs in value or in type (scalar, array, object).
      tasks.push({ operation: { op: 'replace', path, value: after } });
    }
    for (let index = tasks.length - 1; index >= 0; index--) stack.push(tasks[index] as Task);
  }
  return operations;
}

/** Copy is one value still to copy into its place in the copy: `parent[key]` (the root's parent is a holder array). */
interface Copy {
  readonly value: unknown;
  readonly parent: JsonObject | JsonValue[];
  readonly key: string | number;
}

/** Leave marks the end of a container's children: it is off the path of the walk from then on. */
interface Leave {
  readonly source: object;
  readonly copy: JsonObject | JsonValue[];
}

/**
 * toJsonValue copies `value` into a fresh JSON value, as `JSON.parse(JSON.stringify(value))`
 * would but without recursion, so any depth is fine: an object's own enumerable string keys are
 * copied (a `__proto__` key stays an own data property, never a prototype), a `toJSON` method
 * is called (a `Date` becomes its ISO string), `undefined`, functions and symbols are dropped
 * from objects and become `null` in arrays, non-finite numbers become `null`. A cycle or a
 * `bigint` is a `TypeError` that names where it is (as a JSON pointer). Shared subtrees are
 * copied once per place, as JSON would write them.
 */
export function toJsonValue(value: unknown): JsonValue {
  const holder: JsonValue[] = [];
  const stack: (Copy | Leave)[] = [{ value, parent: holder, key: 0 }];
  // What is on the path of the walk makes a cycle (mere sharing does not); each copied container
  // remembers where it sits, so an error can name the place without a path string per node.
  const onPath = new Set<object>();
  const places = new Map<object, { readonly parent: object; readonly key: string | number }>();
  const pointer = (parent: object, key: string | number): string => {
    const tokens: string[] = [];
    for (
      let at: { parent: object; key: string | number } | undefined = { parent, key };
      at !== undefined && at.parent !== holder;
      at = places.get(at.parent)
    ) {
      tokens.push(escapePointerToken(String(at.key)));
    }
    return JSON.stringify(
      tokens
        .reverse()
        .map((token) => `/${token}`)
        .join(''),
    );
  };
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if ('source' in item) {
      onPath.delete(item.source);
      places.delete(item.copy);
      continue;
    }
    const { parent, key } = item;
    let current = item.value;
    if (
      typeof current === 'object' &&
      current !== null &&
      typeof (current as { toJSON?: unknown }).toJSON === 'function'
    ) {
      current = (current as { toJSON: (key: string) => unknown }).toJSON(
        parent === holder ? '' : String(key),
      );
    }
    let copied: JsonValue | undefined;
    if (typeof current === 'string' || typeof current === 'boolean' || current === null) {
      copied = current;
    } else if (typeof current === 'number') {
      copied = Number.isFinite(current) ? current : null;
    } else if (typeof current === 'bigint') {
      throw new TypeError(`a bigint cannot be JSON, at ${pointer(parent, key)}`);
    } else if (typeof current === 'object') {
      if (onPath.has(current))
        throw new TypeError(`the value is circular, at ${pointer(parent, key)}`);
      const copy: JsonObject | JsonValue[] = Array.isArray(current) ? [] : {};
      copied = copy;
      onPath.add(current);
      places.set(copy, { parent, key });
      stack.push({ source: current, copy });
      if (Array.isArray(current)) {
        for (let index = current.length - 1; index >= 0; index--) {
          stack.push({ value: current[index] as unknown, parent: copy, key: index });
        }
      } else {
        const keys = Object.keys(current);
        for (let index = keys.length - 1; index >= 0; index--) {
          const name = keys[index] as string;
          stack.push({
            value: (current as Record<string, unknown>)[name],
            parent: copy,
            key: name,
          });
        }
      }
    }
    // Otherwise undefined, a function or a symbol: no JSON value.
    if (Array.isArray(parent)) parent[key as number] = copied ?? null;
    else if (copied !== undefined) setOwn(parent, key as string, copied);
  }
  return holder[0] as JsonValue;
}

/**
 * stringifyJson writes a value as `JSON.stringify` does (no spaces; `toJSON` honoured; undefined
 * and function members left out, and written `null` in arrays), without recursion, so a value
 * deeper than `JSON.stringify`'s stack allows (a few thousand levels) still encodes.
 */
export function stringifyJson(value: JsonValue): string {
  const chunks: string[] = [];
  // A string item is literal text to write (a comma, a closing bracket); anything else a value.
  const stack: ({ readonly text: string } | { readonly value: unknown })[] = [{ value }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if ('text' in item) {
      chunks.push(item.text);
      continue;
    }
    let current = item.value;
    if (typeof current === 'object' && current !== null && 'toJSON' in current) {
      const toJSON = (current as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') current = (toJSON as () => unknown).call(current);
    }
    if (typeof current !== 'object' || current === null) {
      chunks.push(JSON.stringify(current) ?? 'null');
    } else if (Array.isArray(current)) {
      chunks.push('[');
      stack.push({ text: ']' });
      for (let index = current.length - 1; index >= 0; index--) {
        stack.push({ value: current[index] });
        if (index > 0) stack.push({ text: ',' });
      }
    } else {
      chunks.push('{');
      stack.push({ text: '}' });
      const members = Object.keys(current).filter((key) => {
        const member = (current as Record<string, unknown>)[key];
        return member !== undefined && typeof member !== 'function' && typeof member !== 'symbol';
      });
      for (let index = members.length - 1; index >= 0; index--) {
        const key = members[index] as string;
        stack.push({ value: (current as Record<string, unknown>)[key] });
        stack.push({ text: `${index > 0 ? ',' : ''}${JSON.stringify(key)}:` });
      }
    }
  }
  return chunks.join('');
}
