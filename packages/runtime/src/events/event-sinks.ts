import type { CreateOptions, PatchOptions } from '@k/clientset';
import type { Event as CoreEvent } from '@k/clientset/core/v1';
import type { Event } from '@k/clientset/events/v1';
import { conditionTime } from '../conditions/status-conditions.js';
import { microTime } from '../leader-election/leader-elector.js';
import type { CorrelatedEvent } from './event-correlator.js';

/** EventsClient is what a recorder writes events.k8s.io/v1 Events with: `cs.eventsV1.events(namespace)`. */
export interface EventsClient {
  create(event: Event, options?: CreateOptions): Promise<Event>;
  patch(name: string, type: 'merge', body: Partial<Event>, options?: PatchOptions): Promise<Event>;
}

/** CoreEventsClient is what a recorder writes core v1 Events with: `cs.coreV1.events(namespace)`. */
export interface CoreEventsClient {
  create(event: CoreEvent, options?: CreateOptions): Promise<CoreEvent>;
  patch(
    name: string,
    type: 'merge',
    body: Partial<CoreEvent>,
    options?: PatchOptions,
  ): Promise<CoreEvent>;
}

/** EventsClientSource gives the Events clients of a namespace: a `Clientset` is one. */
export interface EventsClientSource {
  eventsV1: { events(namespace: string): EventsClient };
  /** coreV1 is needed only by a recorder that writes core v1 Events (`apiVersion: 'v1'`). */
  coreV1?: { events(namespace: string): CoreEventsClient } | undefined;
}

/** Reporter names who reports: the controller and this process. */
export interface Reporter {
  controller: string;
  instance: string;
}

/** EventSink writes one API's Events: creates one for a correlated event, or counts a repeat into it. */
export interface EventSink {
  create(entry: CorrelatedEvent, name: string, options: CreateOptions): Promise<void>;
  update(entry: CorrelatedEvent, options: PatchOptions): Promise<void>;
}

/** namespaceOf is where an Event about the entry's object lives (`default` for cluster-scoped objects). */
function namespaceOf(entry: CorrelatedEvent): string {
  return entry.event.regarding.namespace || 'default';
}

/**
 * eventsV1Sink writes events.k8s.io/v1 Events (client-go's tools/events): a repeat is the
 * Event's `series` (count and last observed time).
 */
export function eventsV1Sink(source: EventsClientSource, reporter: Reporter): EventSink {
  const series = (entry: CorrelatedEvent) =>
    entry.count > 1
      ? { series: { count: entry.count, lastObservedTime: microTime(entry.lastAt) } }
      : {};
  return {
    async create(entry, name, options) {
      const { event } = entry;
      await source.eventsV1.events(namespaceOf(entry)).create(
        {
          apiVersion: 'events.k8s.io/v1',
          kind: 'Event',
          metadata: { name, namespace: namespaceOf(entry) },
          eventTime: microTime(entry.firstAt),
          type: event.type,
          reason: event.reason,
          action: event.action,
          note: event.note,
          regarding: event.regarding,
          ...(event.related ? { related: event.related } : {}),
          reportingController: reporter.controller,
          reportingInstance: reporter.instance,
          ...series(entry),
        },
        options,
      );
    },
    async update(entry, options) {
      await source.eventsV1
        .events(namespaceOf(entry))
        .patch(entry.name!, 'merge', series(entry), options);
    },
  };
}

/**
 * coreV1Sink writes core v1 Events (client-go's legacy tools/record): `involvedObject`,
 * `count`, `firstTimestamp` and `lastTimestamp` at whole seconds, `source.component`; a repeat
 * patches the count and the last timestamp.
 */
export function coreV1Sink(source: EventsClientSource, reporter: Reporter): EventSink {
  const core = source.coreV1!;
  const seconds = (milliseconds: number) => conditionTime(new Date(milliseconds));
  return {
    async create(entry, name, options) {
      const { event } = entry;
      await core.events(namespaceOf(entry)).create(
        {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name, namespace: namespaceOf(entry) },
          involvedObject: event.regarding,
          ...(event.related ? { related: event.related } : {}),
          type: event.type,
          reason: event.reason,
          action: event.action,
          message: event.note,
          count: entry.count,
          firstTimestamp: seconds(entry.firstAt),
          lastTimestamp: seconds(entry.lastAt),
          source: { component: reporter.controller },
          reportingComponent: reporter.controller,
          reportingInstance: reporter.instance,
        },
        options,
      );
    },
    async update(entry, options) {
      await core
        .events(namespaceOf(entry))
        .patch(
          entry.name!,
          'merge',
          { count: entry.count, lastTimestamp: seconds(entry.lastAt) },
          options,
        );
    },
  };
}
