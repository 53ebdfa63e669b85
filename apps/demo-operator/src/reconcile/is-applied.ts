import { sameQuantity } from './quantity.js';

/** The keys that identify an element of the associative lists the operator writes (containers, ports, env). */
const LIST_KEYS = ['name', 'containerPort', 'port', 'uid'] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function keyOf(element: unknown): string | undefined {
  if (!isRecord(element)) return undefined;
  for (const key of LIST_KEYS) {
    const value = element[key];
    if (typeof value === 'string' || typeof value === 'number') return `${key}=${value}`;
  }
  return undefined;
}

/** isQuantity: `path` (field names, list positions left out) is a resource quantity: `…resources.{limits,requests}.<name>`. */
function isQuantity(path: readonly string[]): boolean {
  const section = path.at(-2);
  return path.at(-3) === 'resources' && (section === 'limits' || section === 'requests');
}

/**
 * isApplied is true when `live` already holds every field of `desired`, the configuration the
 * operator would apply: objects field by field (fields only `live` has, set by the server or by
 * others, are fine), keyed lists element by element by their key (`name`, `containerPort`,
 * `port`), other lists position by position with the same length, scalars equal, and resource
 * quantities (`resources.limits` and `resources.requests`) equal in value, as the server
 * rewrites them (`0.5` is stored as `500m`). The operator then sends nothing: a reconcile with
 * nothing to change makes no write. Together with the hash annotation of the applied
 * configuration (which changes when a field is removed from it) this is exactly "the server
 * already has what server-side apply would set".
 */
export function isApplied(live: unknown, desired: unknown): boolean {
  return appliedAt(live, desired, []);
}

function appliedAt(live: unknown, desired: unknown, path: readonly string[]): boolean {
  if (Array.isArray(desired)) {
    if (!Array.isArray(live)) return false;
    const keys = desired.map(keyOf);
    if (keys.every((key) => key !== undefined)) {
      const liveByKey = new Map(live.map((element) => [keyOf(element), element]));
      return desired.every((element, index) =>
        appliedAt(liveByKey.get(keys[index]), element, path),
      );
    }
    return (
      live.length === desired.length &&
      desired.every((element, index) => appliedAt(live[index], element, path))
    );
  }
  if (isRecord(desired)) {
    if (!isRecord(live)) return false;
    return Object.entries(desired).every(
      ([field, value]) => value === undefined || appliedAt(live[field], value, [...path, field]),
    );
  }
  return isQuantity(path) ? sameQuantity(live, desired) : live === desired;
}
