// @k/runtime/writes: writing only what changes — is the desired configuration already applied
// (keyed lists by key, quantities by value), and your own writes before the cache has them.
export { isApplied } from './writes/is-applied.js';
export type { IsAppliedOptions } from './writes/is-applied.js';
export type { FieldPath, GroupKind, ListType } from './writes/built-in-fields.js';
export { compareQuantities, sameQuantity } from './writes/quantity.js';
export { OwnWrites } from './writes/own-writes.js';
export type { ObjectIdentity, OwnWritesOptions, WatchedCache } from './writes/own-writes.js';
