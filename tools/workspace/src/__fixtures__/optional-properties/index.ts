// The public entry point public-optional-properties.test.ts judges: one optional property of each
// kind the walk must report, and one it must not.

export interface Written {
  a?: string;
}

/** Optional is a mapped type of this package (lib's Partial<…> is not judged yet). */
type Optional<T> = { [K in keyof T]?: T[K] };

export type MadeOptional = Optional<{ b: string }>;

/** OnlyReturned is not exported: a user reaches it only through returnsOnlyReturned(). */
interface OnlyReturned {
  c?: number;
}

export function returnsOnlyReturned(): OnlyReturned {
  return {};
}

export interface AcceptsUndefined {
  d?: string | undefined;
}
