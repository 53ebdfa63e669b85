// Workqueue: dedup, one worker per key, delays and client-go's rate limiters.
export { Workqueue } from './workqueue/workqueue.js';
export type { WorkqueueOptions } from './workqueue/workqueue.js';
export {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
} from './workqueue/rate-limiters.js';
export type { WorkqueueRateLimiter } from './workqueue/rate-limiters.js';

// Informers: list+watch that resumes, relists and backs off by itself, into an indexed cache.
export { Informer } from './informer/informer.js';
export type { InformerHealth, InformerOptions } from './informer/informer.js';
export { InformerFactory } from './informer/informer-factory.js';
export { Reflector, INITIAL_EVENTS_END_ANNOTATION } from './informer/reflector.js';
export type { ListerWatcher, ReflectorOptions, ReflectorSink } from './informer/reflector.js';
export { ReflectorHealth } from './informer/reflector-health.js';
export type { ReflectorState } from './informer/reflector-health.js';
export { Backoff } from './informer/backoff.js';
export type { BackoffOptions } from './informer/backoff.js';
export type { EventHandler, HandlerRegistration } from './informer/handler-set.js';
export { dropManagedFields } from './informer/transforms.js';
export {
  IndexedStore,
  NAMESPACE_INDEX,
  namespaceIndex,
  ownerUidIndex,
} from './cache/indexed-store.js';
export type { IndexFunction, Lister } from './cache/indexed-store.js';
export {
  DeletedFinalStateUnknown,
  finalStateOf,
  objectKey,
  splitObjectKey,
} from './cache/object-key.js';

// Controllers: reconcile over a workqueue fed by informers.
export { Controller } from './controller/controller.js';
export type {
  ControllerOptions,
  ReconcileContext,
  ReconcileResult,
  Reconciler,
} from './controller/controller.js';
export { ControllerBuilder } from './controller/controller-builder.js';
export {
  annotationsChanged,
  anyOf,
  generationChanged,
  labelsChanged,
  resourceVersionChanged,
} from './controller/predicates.js';
export type { Predicate } from './controller/predicates.js';
export {
  controllerOwnerRequests,
  requestFor,
  requestFromKey,
  requestKey,
} from './controller/request.js';
export type { OwnerKind, Request } from './controller/request.js';
export { controllerOf, isControlledBy } from './controller/ownership.js';

// Leader election on coordination.k8s.io/v1 Leases.
export { LeaderElector, microTime } from './leader-election/leader-elector.js';
export type { LeaderElectorOptions, LeaseClient } from './leader-election/leader-elector.js';

// Manager: informers, controllers, leader election, /healthz, /readyz, /metrics, signals.
export { Manager } from './manager/manager.js';
export type {
  Closeable,
  ListenOptions,
  ManagerLeaderElectionOptions,
  ManagerOptions,
  ManagerRunOptions,
} from './manager/manager.js';
export type { Runnable, RunnableContext } from './manager/runnable.js';
export type { ServerAddress, ServerKind } from './manager/manager-server.js';
export type { HealthCheck } from './manager/health-checks.js';

// Events: events.k8s.io/v1 (or core v1) with client-go's aggregation, series and spam filter.
export { EventRecorder, referenceOf } from './events/event-recorder.js';
export type {
  EventOptions,
  EventRecorderOptions,
  EventRecorderStats,
} from './events/event-recorder.js';
export type { CoreEventsClient, EventsClient, EventsClientSource } from './events/event-sinks.js';
export { COMBINED_PREFIX, EventCorrelator } from './events/event-correlator.js';
export type {
  Correlation,
  CorrelatedEvent,
  EventCorrelatorOptions,
  EventType,
  RecordedEvent,
} from './events/event-correlator.js';

// Status conditions: metav1.Condition semantics (apimachinery's meta.SetStatusCondition and friends).
export {
  conditionTime,
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
} from './conditions/status-conditions.js';
export type {
  ConditionLike,
  ConditionUpdate,
  StatusCondition,
} from './conditions/status-conditions.js';

// Finalizers: controller-runtime's controllerutil helpers, and guarded patches against the server.
export {
  addFinalizer,
  addFinalizerPatch,
  containsFinalizer,
  removeFinalizer,
  removeFinalizerPatch,
} from './finalizers/finalizers.js';
export type { FinalizedObject } from './finalizers/finalizers.js';
export { addFinalizerOnServer, removeFinalizerOnServer } from './finalizers/patch-finalizers.js';
export type { FinalizerClient, FinalizerPatchOptions } from './finalizers/patch-finalizers.js';

// Logging: a small structured interface; the default drops everything.
export { SILENT_LOGGER } from './logger.js';
export type { LogFields, Logger } from './logger.js';

// Metrics: a small sink interface (Prometheus adapter at @k/runtime/prometheus).
export { NOOP_METRICS, exponentialBuckets, isScrapable } from './metrics/metrics-sink.js';
export type {
  Counter,
  Gauge,
  GaugeDefinition,
  Histogram,
  HistogramDefinition,
  MetricDefinition,
  MetricLabels,
  MetricsExposition,
  MetricsSink,
  ScrapableMetricsSink,
} from './metrics/metrics-sink.js';

// Errors.
export { InformerError, RuntimeError } from './errors.js';
export type { KRuntimeErrorCode, RuntimeErrorCode } from './errors.js';
