// Iterative walks over JSON values for the conversion webhook: objects arrive from the API server
// (a LIST page, each object possibly thousands of levels deep) and leave through the server's
// iterative JSON writer, so nothing here recurses, and keys such as `__proto__` stay data.

import { setOwn } from '../internal/set-own.js';

/** JsonObject is a parsed JSON object (an own-keys record, never an array). */
export type JsonObject = Record<string, unknown>;

/** isJsonObject is true for a non-null object that is not an array. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** MAX_VISITS bounds a walk of a graph whose parts are shared (each met again through every parent). */
const MAX_VISITS = 10_000_000;

/**
 * exceedsDepth is true when `value` nests objects and arrays more than `maxDepth` levels (`{}` is
 * one level, a scalar none), holds a cycle (infinitely deep) or a bigint (which JSON.stringify
 * refuses), or is a graph whose shared parts make it more than ten million values when walked as
 * the tree JSON.stringify writes.
 */
export function exceedsDepth(value: unknown, maxDepth: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  let visits = 0;
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [current, depth] = next;
    if (typeof current === 'bigint') return true;
    if (typeof current !== 'object' || current === null) continue;
    if (depth > maxDepth || (visits += 1) > MAX_VISITS) return true;
    if (Array.isArray(current)) {
      for (const child of current) stack.push([child, depth + 1]);
    } else {
      for (const key in current) {
        if (Object.hasOwn(current, key)) stack.push([(current as JsonObject)[key], depth + 1]);
      }
    }
  }
  return false;
}

/**
 * copyJson returns a deep copy of a JSON value: plain objects with their own enumerable keys
 * (`__proto__` kept as data), arrays, and the scalars themselves; or `undefined` when it nests
 * deeper than `maxDepth` levels (a cycle does). Values JSON cannot hold are copied as they are.
 */
export function copyJson(value: unknown, maxDepth: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const root: unknown = Array.isArray(value) ? [] : {};
  const stack: [source: object, target: unknown, depth: number][] = [[value, root, 1]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [source, target, depth] = next;
    if (depth > maxDepth) return undefined;
    const copied = (key: string, item: unknown): void => {
      let copy: unknown = item;
      if (typeof item === 'object' && item !== null) {
        copy = Array.isArray(item) ? [] : {};
        stack.push([item, copy, depth + 1]);
      }
      if (Array.isArray(target)) target.push(copy);
      else setOwn(target as JsonObject, key, copy);
    };
    if (Array.isArray(source)) {
      for (const item of source as unknown[]) copied('', item);
    } else {
      for (const key in source) {
        if (Object.hasOwn(source, key)) copied(key, (source as JsonObject)[key]);
      }
    }
  }
  return root;
}

/** JsonDifference is one place where two JSON values differ. */
export interface JsonDifference {
  /** path of the place, e.g. `spec.hosts[1]` or `metadata.annotations["demo.k.io/x"]`; `''` for the root. */
  readonly path: string;
  /** expected is the value in the first tree (`undefined` when absent). */
  readonly expected: unknown;
  /** actual is the value in the second tree (`undefined` when absent). */
  readonly actual: unknown;
}

/** ownValue is `object[key]` when it is the object's own, else undefined (never an inherited `__proto__`). */
export function ownValue(object: JsonObject, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

const PLAIN_KEY = /^[A-Za-z_$][\w$]*$/;

function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  if (PLAIN_KEY.test(key)) return path === '' ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}

/**
 * jsonDifferences lists where `expected` and `actual` differ as JSON (key order ignored, a key
 * whose value is `undefined` counts as absent, as JSON.stringify drops it), at most `limit`
 * places. It walks both trees iteratively; trees deeper than JSON allows are the caller's to refuse.
 */
export function jsonDifferences(
  expected: unknown,
  actual: unknown,
  limit: number,
): JsonDifference[] {
  const differences: JsonDifference[] = [];
  const stack: [path: string, expected: unknown, actual: unknown][] = [['', expected, actual]];
  for (
    let next = stack.pop();
    next !== undefined && differences.length < limit;
    next = stack.pop()
  ) {
    const [path, left, right] = next;
    if (Object.is(left, right)) continue;
    if (Array.isArray(left) && Array.isArray(right)) {
      const length = Math.max(left.length, right.length);
      for (let index = length - 1; index >= 0; index -= 1) {
        stack.push([childPath(path, index), left[index], right[index]]);
      }
    } else if (isJsonObject(left) && isJsonObject(right)) {
      const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
      for (const key of [...keys].reverse()) {
        stack.push([childPath(path, key), ownValue(left, key), ownValue(right, key)]);
      }
    } else if (!(typeof left === 'number' && left === right)) {
      differences.push({ path, expected: left, actual: right });
    }
  }
  return differences;
}
