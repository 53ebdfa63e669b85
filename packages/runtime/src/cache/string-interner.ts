// V8's JSON.parse already shares property names and string values of up to 10 characters.
const MIN_LENGTH = 11;
// Longer values (certificates, scripts, last-applied annotations) rarely repeat; hashing them costs.
const MAX_LENGTH = 256;
const DEFAULT_CAPACITY = 16_384;

/**
 * StringInterner makes the equal strings of cached objects one string: the image, the mount
 * paths, the tolerations and the scheduler name of 10,000 Pods are otherwise 10,000 copies each,
 * a quarter of the heap of an informer's cache. Strings are immutable, so sharing them changes
 * nothing a reader can see. Its table is bounded: when it holds `capacity` strings it starts
 * over (strings already shared stay shared). Not for concurrent use; one per informer.
 */
export class StringInterner {
  readonly #capacity: number;
  #table = new Map<string, string>();

  constructor(capacity = DEFAULT_CAPACITY) {
    this.#capacity = capacity;
  }

  /** intern returns the table's string equal to `text`, adding `text` if there is none. */
  intern(text: string): string {
    if (text.length < MIN_LENGTH || text.length > MAX_LENGTH) return text;
    const known = this.#table.get(text);
    if (known !== undefined) return known;
    if (this.#table.size >= this.#capacity) this.#table = new Map();
    this.#table.set(text, text);
    return text;
  }

  /**
   * internTree replaces, in place, every string value in the objects and arrays of `value` by
   * its interned string, and returns `value`. Only for a tree fresh from `JSON.parse` (plain
   * objects and arrays, no cycles, nothing frozen), which the caller owns. Any depth: it keeps
   * the objects still to visit in a list of its own, not on the call stack, since a custom
   * resource's free-form fields may nest as deep as the API server allows (about 10,000 levels,
   * where a recursive walk overflows the stack).
   */
  internTree<T>(value: T): T {
    if (typeof value !== 'object' || value === null) return value;
    const pending: (Record<string, unknown> | unknown[])[] = [value as Record<string, unknown>];
    for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
      if (Array.isArray(node)) {
        for (let index = 0; index < node.length; index += 1) {
          const item: unknown = node[index];
          // Always assign: `===` compares strings by value, so a shared copy cannot be told apart.
          if (typeof item === 'string') node[index] = this.intern(item);
          else if (typeof item === 'object' && item !== null)
            pending.push(item as Record<string, unknown>);
        }
      } else {
        for (const key in node) {
          const item = node[key];
          if (typeof item === 'string') node[key] = this.intern(item);
          else if (typeof item === 'object' && item !== null)
            pending.push(item as Record<string, unknown>);
        }
      }
    }
    return value;
  }
}
