/**
 * stableJson renders `value` as pretty-printed JSON (two spaces) with every object's keys sorted
 * and a trailing newline, so a snapshot re-fetched from an unchanged server is byte-identical and
 * a changed one diffs line by line. Array order is kept: it is meaningful in Kubernetes documents.
 */
export function stableJson(value: unknown): string {
  return `${JSON.stringify(sortKeys(value), null, 2)}\n`;
}

/** sortKeys returns a deep copy of `value` whose objects have their keys in code-point order. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort(compareStrings)) {
    sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  }
  return sorted;
}

/** compareStrings orders strings by code point, independent of the locale. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
