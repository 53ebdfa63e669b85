// @k/runtime/informer: informers (list+watch that resumes, relists and backs off by itself), their
// indexed caches, the shared factory and the reflector underneath.
export { Informer } from './informer/informer.js';
export type { InformerHealth, InformerOptions } from './informer/informer.js';
export { InformerFactory } from './informer/informer-factory.js';
export { Reflector, INITIAL_EVENTS_END_ANNOTATION } from './informer/reflector.js';
export type { ListerWatcher, ReflectorOptions, ReflectorSink } from './informer/reflector.js';
export { ReflectorHealth } from './informer/reflector-health.js';
export type { ReflectorState } from './informer/reflector-health.js';
export { ExponentialBackoff } from './informer/backoff.js';
export type { ExponentialBackoffOptions } from './informer/backoff.js';
export type { EventHandler, HandlerRegistration } from './informer/handler-set.js';
export { dropManagedFields } from './informer/transforms.js';
export {
  IndexedStore,
  NAMESPACE_INDEX,
  namespaceIndex,
  ownerUidIndex,
} from './cache/indexed-store.js';
export type { IndexFunction, Lister } from './cache/indexed-store.js';
export { DeletedFinalStateUnknown, finalStateOf, objectKey } from './cache/object-key.js';
export { InformerError } from './errors.js';
