// @k/runtime: what an operator author needs — a Manager, typed controllers, finalizers, errors,
// status conditions, ownership and the no-op-write helpers. The building blocks have subpaths:
// `@k/runtime/informer` (informers, caches, reflector), `@k/runtime/workqueue`,
// `@k/runtime/events`, `@k/runtime/leader-election`, `@k/runtime/finalizers` (finalizer patches
// without a controller), `@k/runtime/conditions`, `@k/runtime/writes`, `@k/runtime/metrics`,
// `@k/runtime/prometheus`, `@k/runtime/webhook` and `@k/runtime/di`. A subpath has the whole of
// its area, so a few of its names are also here.

// Manager: informers, controllers, leader election, probes, /metrics, signals; owns its clientset.
export { Manager } from './manager/manager.js';
export type {
  CreateManagerOptions,
  ListenOptions,
  ManagerLeaderElectionOptions,
  ManagerOptions,
  ManagerRunOptions,
} from './manager/manager.js';
export type { Runnable, RunnableContext } from './manager/runnable.js';
export type { ServerAddress } from './manager/manager-server.js';

// Webhooks: an HTTPS server for admission and conversion handlers (the rest: `@k/runtime/webhook`).
export { WebhookServer } from './webhook/webhook-server.js';
export type { WebhookServerAddress, WebhookServerOptions } from './webhook/webhook-server.js';
export type { WebhookCertificateOptions } from './webhook/serving-certificate.js';
export type {
  AdmissionContext,
  MutatingHandlers,
  ValidatingHandlers,
} from './webhook/admission.js';
export type { AdmissionRequest } from './webhook/admission-review.js';
export type { ConversionDefinition, VersionConverter } from './webhook/conversion.js';

// Controllers: the reconciler gets its object; errors retry, terminal errors do not.
export { Controller } from './controller/controller.js';
export type {
  ControllerOptions,
  ReconcileContext,
  ReconcileResult,
  Reconciler,
} from './controller/controller.js';
export { ControllerBuilder } from './controller/controller-builder.js';
export type { SourceOptions } from './controller/controller-builder.js';
export { requestFor } from './controller/request.js';
export type { ReconcileRequest } from './controller/request.js';
export {
  annotationsChanged,
  anyOf,
  generationChanged,
  labelsChanged,
  resourceVersionChanged,
} from './controller/predicates.js';
export type { Predicate } from './controller/predicates.js';
export { controllerOf, isControlledBy } from './controller/ownership.js';
export { withFinalizer } from './finalizers/with-finalizer.js';
export type { FinalizerHandlers } from './finalizers/with-finalizer.js';

// Writing only what changes: desired against live, and your own writes before the cache has them.
export { isApplied } from './writes/is-applied.js';
export { OwnWrites } from './writes/own-writes.js';

// Status conditions (the whole set: `@k/runtime/conditions`).
export {
  findStatusCondition,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
} from './conditions/status-conditions.js';
export type { StatusCondition } from './conditions/status-conditions.js';

// Informers and events, as a reconciler reads and tells (their options: the subpaths).
export type { Informer } from './informer/informer.js';
export type { Lister } from './cache/indexed-store.js';
export type { EventRecorder } from './events/event-recorder.js';

// Logging: JSON lines on stderr by default.
export { SILENT_LOGGER, jsonLogger } from './logger.js';
export type { LogFields, Logger } from './logger.js';

// Errors.
export { AdmissionDenied, RuntimeError, TerminalError } from './errors.js';
export type { AdmissionCause, AdmissionDeniedOptions } from './errors.js';
export type { RuntimeErrorCode } from './errors.js';
