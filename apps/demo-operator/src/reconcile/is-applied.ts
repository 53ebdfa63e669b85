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

/**
 * isApplied is true when `live` already holds every field of `desired`, the configuration the
 * operator would apply: objects field by field (fields only `live` has, set by the server or by
 * others, are fine), keyed lists element by element by their key (`name`, `containerPort`,
 * `port`), other lists position by position with the same length, scalars equal. The operator
 * then sends nothing: a reconcile with nothing to change makes no write. Together with the hash
 * annotation of the applied configuration (which changes when a field is removed from it) this is
 * exactly "the server already has what server-side apply would set".
 */
export function isApplied(live: unknown, desired: unknown): boolean {
  if (Array.isArray(desired)) {
    if (!Array.isArray(live)) return false;
    const keys = desired.map(keyOf);
    if (keys.every((key) => key !== undefined)) {
      const liveByKey = new Map(live.map((element) => [keyOf(element), element]));
      return desired.every((element, index) => isApplied(liveByKey.get(keys[index]), element));
    }
    return (
      live.length === desired.length &&
      desired.every((element, index) => isApplied(live[index], element))
    );
  }
  if (isRecord(desired)) {
    if (!isRecord(live)) return false;
    return Object.entries(desired).every(
      ([field, value]) => value === undefined || isApplied(live[field], value),
    );
  }
  return live === desired;
}
