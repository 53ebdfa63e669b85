import {
  ATOMIC,
  builtInListType,
  isBuiltInQuantity,
  type FieldPath,
  type GroupKind,
  type ListType,
} from './built-in-fields.js';
import { sameQuantity } from './quantity.js';

/**
 * IsAppliedOptions describe the fields of a kind the built-in tables do not know (a custom
 * resource's keyed lists and quantities), or correct them. Each callback is asked first; where it
 * returns undefined the tables of the built-in kinds answer (see `builtInListType` and
 * `isBuiltInQuantity`), and a list they do not know is atomic.
 */
export interface IsAppliedOptions {
  /**
   * listType is how server-side apply merges the list at `path` of an object of `type`: what its
   * schema says with `x-kubernetes-list-type` and `x-kubernetes-list-map-keys`.
   */
  listType?: ((path: FieldPath, type: GroupKind) => ListType | undefined) | undefined;
  /** isQuantity is whether the scalar at `path` is a `resource.Quantity`, compared by value. */
  isQuantity?: ((path: FieldPath, type: GroupKind) => boolean | undefined) | undefined;
}

/** A pair still to compare; `field` is its name in its parent (undefined: a list's element). */
interface Pending {
  readonly live: unknown;
  readonly desired: unknown;
  readonly depth: number;
  readonly field: string | undefined;
}

const UNKNOWN_TYPE: GroupKind = { group: '', kind: '' };

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** own reads a field of `record` itself, never one it inherits (`__proto__`, `constructor`). */
function own(record: Record<string, unknown>, field: string): unknown {
  return Object.hasOwn(record, field) ? record[field] : undefined;
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** groupKindOf is the API group and kind an object says it is of. */
function groupKindOf(object: unknown): GroupKind | undefined {
  if (!isRecord(object)) return undefined;
  const [apiVersion, kind] = [own(object, 'apiVersion'), own(object, 'kind')];
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return undefined;
  const slash = apiVersion.indexOf('/');
  return { group: slash === -1 ? '' : apiVersion.slice(0, slash), kind };
}

/**
 * keyOf is the identity of an element of a keyed list: its key fields' values (a key it leaves
 * out counts as its default, else as absent, as server-side apply matches), each written with
 * its type and length so that no two identities read alike. Undefined when it is not an object,
 * sets none of the keys itself, or a key is not a scalar.
 */
function keyOf(element: unknown, listType: ListType & { type: 'map' }): string | undefined {
  if (!isRecord(element)) return undefined;
  let identity = '';
  let keyed = false;
  for (const key of listType.keys) {
    let value = own(element, key);
    if (value === undefined || value === null) {
      const defaults = listType.keyDefaults;
      value = defaults && Object.hasOwn(defaults, key) ? defaults[key] : undefined;
    } else {
      keyed = true;
    }
    if (value === undefined) {
      identity += '-';
    } else if (isScalar(value)) {
      const text = String(value);
      identity += `${typeof value}${text.length}:${text}`;
    } else {
      return undefined;
    }
  }
  return keyed ? identity : undefined;
}

/**
 * pairsOfList are the pairs to compare for a desired list against the live one, or undefined
 * when the live list lacks an element or has another length where it must not.
 */
function pairsOfList(
  live: readonly unknown[],
  desired: readonly unknown[],
  listType: ListType,
): [unknown, unknown][] | undefined {
  if (listType.type === 'set' && desired.every(isScalar)) {
    const members = new Set(live);
    return desired.every((element) => members.has(element)) ? [] : undefined;
  }
  if (listType.type === 'map') {
    const keys = desired.map((element) => keyOf(element, listType));
    if (keys.every((key) => key !== undefined)) {
      const liveByKey = new Map<string, unknown>();
      for (const element of live) {
        const key = keyOf(element, listType);
        if (key !== undefined && !liveByKey.has(key)) liveByKey.set(key, element);
      }
      const pairs: [unknown, unknown][] = [];
      for (const [index, key] of keys.entries()) {
        if (!liveByKey.has(key)) return undefined;
        pairs.push([liveByKey.get(key), desired[index]]);
      }
      return pairs;
    }
  }
  // Atomic (also a keyed list whose desired elements lack their keys): whole, in order.
  if (live.length !== desired.length) return undefined;
  return desired.map((element, index) => [live[index], element]);
}

/**
 * isApplied is true when `live` already holds everything `desired` — the configuration you
 * would apply with server-side apply — sets, so that applying it would change nothing and the
 * write can be left out (a reconcile with nothing to change makes no request). Both are whole
 * objects; the kind is `desired`'s `apiVersion` and `kind` (else `live`'s). Compared:
 *
 * - objects field by field: a field only `live` has (set by the server, its defaults, or other
 *   field managers) is fine; a field `desired` sets to undefined is not compared, one set to
 *   null must be absent or null in `live`;
 * - keyed lists (`x-kubernetes-list-type: map`: containers by `name`, container ports by
 *   `containerPort` and `protocol`, Service ports by `port` and `protocol` — `protocol`
 *   defaulting to `TCP` as the server defaults it —, env by `name`, volume mounts by
 *   `mountPath`, conditions by `type`, …) element by element, matched on all their keys, in
 *   any order, other elements allowed; sets (`finalizers`) member by member; any other list
 *   whole: same length, element by element in order (an empty desired list also matches an
 *   absent one, which is how the server stores it);
 * - scalars equal (`===`), and resource quantities (`resources.requests`, a PersistentVolume's
 *   `capacity`, a ResourceQuota's `hard`, …) equal in value, as the server rewrites them
 *   (`0.5` is stored as `500m`; see `sameQuantity`).
 *
 * Which lists are keyed and which fields are quantities comes from the tables of the built-in
 * kinds (which also hold where a custom resource embeds one, such as a Pod template); a custom
 * resource's own keyed lists and quantities are told with `options`.
 *
 * It answers only "would the apply add or change something", not "would it remove something":
 * a field you stop setting stays in `live` until the apply that no longer sets it, so keep a
 * hash of the applied configuration in an annotation (it changes when a field goes) or compare
 * your field manager's `managedFields`. When unsure (a quantity it cannot read, an element
 * without its keys) it says false: at worst one apply that changes nothing.
 *
 * The walk is iterative and linear in the size of `desired` (lists are indexed by key): an
 * object nested 10,000 levels deep or a list of a million elements cannot overflow the stack.
 * Only own fields are read (`__proto__` is a field like any other).
 */
export function isApplied(
  live: unknown,
  desired: unknown,
  options: IsAppliedOptions = {},
): boolean {
  const type = groupKindOf(desired) ?? groupKindOf(live) ?? UNKNOWN_TYPE;
  const { listType, isQuantity } = options;
  // One array for every path: a pair's ancestors are on it when it is taken (depth first).
  const path: string[] = [];
  const pending: Pending[] = [{ live, desired, depth: 0, field: undefined }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { live, desired, depth, field } = next;
    path.length = depth;
    if (field !== undefined) path[depth - 1] = field;
    if (live === desired || desired === undefined) continue;
    if (desired === null) {
      if (live === undefined) continue;
      return false;
    }
    if (Array.isArray(desired)) {
      if (desired.length === 0 && (live === undefined || live === null)) continue;
      if (!Array.isArray(live)) return false;
      const merge = listType?.(path, type) ?? builtInListType(path, type) ?? ATOMIC;
      const pairs = pairsOfList(live, desired, merge);
      if (pairs === undefined) return false;
      for (const [liveElement, desiredElement] of pairs) {
        pending.push({ live: liveElement, desired: desiredElement, depth, field: undefined });
      }
    } else if (isRecord(desired)) {
      if (!isRecord(live)) return false;
      for (const name of Object.keys(desired)) {
        pending.push({
          live: own(live, name),
          desired: desired[name],
          depth: depth + 1,
          field: name,
        });
      }
    } else if (isQuantity?.(path, type) ?? isBuiltInQuantity(path, type)) {
      if (!sameQuantity(live, desired)) return false;
    } else {
      return false; // scalars that are not `===`
    }
  }
  return true;
}
