// @k/runtime/events: events.k8s.io/v1 (or core v1) Events with client-go's aggregation, series
// and spam filter. A Manager makes recorders it flushes at shutdown: `manager.eventRecorder()`.
export { EventRecorder, referenceOf } from './events/event-recorder.js';
export type {
  EventOptions,
  EventRecorderOptions,
  EventRecorderStats,
} from './events/event-recorder.js';
export type { CoreEventsClient, EventsClient, EventsClientSource } from './events/event-sinks.js';
export { EventCorrelator } from './events/event-correlator.js';
export type {
  Correlation,
  CorrelatedEvent,
  EventCorrelatorOptions,
  EventType,
  RecordedEvent,
} from './events/event-correlator.js';
