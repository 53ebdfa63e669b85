/**
 * setOwn sets `key` on `target` as an own data property, also when `key` is `__proto__` (which
 * `target[key] = value` would take for the prototype): JSON from a server or a tenant keeps such
 * keys as data and never reaches a prototype.
 */
export function setOwn(target: object, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else {
    (target as Record<string, unknown>)[key] = value;
  }
}
