/**
 * withDefaults is `options` over `defaults`, entry by entry, where an entry of `options` that is
 * `undefined` keeps its default: an option passed as `undefined` means "unset", as it does when it
 * is left out (a spread would let it erase the default). Other values, `null` and `false`
 * included, win as they are, so the options' own checks still see them.
 */
export function withDefaults<T extends object>(defaults: Partial<T>, options: T): T {
  const merged: Record<string, unknown> = { ...defaults };
  for (const [key, value] of Object.entries(options)) {
    if (value !== undefined) merged[key] = value;
  }
  return merged as T;
}
