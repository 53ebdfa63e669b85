import { hostname } from 'node:os';
import type { KubernetesObject } from '@k/clientset';
import type { ObjectReference } from '@k/clientset/core/v1';
import { isNotFound } from '@k/rest';
import { RuntimeError } from '../errors.js';
import { SILENT_LOGGER, type Logger } from '../logger.js';
import {
  EventCorrelator,
  type CorrelatedEvent,
  type EventCorrelatorOptions,
  type EventType,
  type RecordedEvent,
} from './event-correlator.js';
import {
  coreV1Sink,
  eventsV1Sink,
  type EventSink,
  type EventsClientSource,
} from './event-sinks.js';

/** EventRecorderOptions configure an {@link EventRecorder}. */
export interface EventRecorderOptions extends EventCorrelatorOptions {
  /** reportingController names the controller in every Event (`example.com/widget-controller`). */
  reportingController: string;
  /**
   * apiVersion is the API the Events are written to: `events.k8s.io/v1` (default; client-go's
   * tools/events, a repeat is the Event's `series`) or `v1`, the core Events of client-go's
   * legacy tools/record (`involvedObject`, `count`, `firstTimestamp`/`lastTimestamp`,
   * `source.component`), for tools and policies that read only those. Correlation is the same;
   * with `v1` a repeat counts into its Event however late it comes (`seriesWindowMs` defaults
   * to Infinity, as tools/record has no window), until the server forgets the Event.
   */
  apiVersion?: 'events.k8s.io/v1' | 'v1' | undefined;
  /** reportingInstance names this process (default: the controller and the host name). */
  reportingInstance?: string | undefined;
  /** maxQueued bounds the Events waiting to be sent; more are dropped (default 1000). */
  maxQueued?: number | undefined;
  /** requestTimeoutMs bounds each create or patch (default 10 s). */
  requestTimeoutMs?: number | undefined;
  logger?: Logger | undefined;
  /** now is the wall clock of the Events' times (default `Date.now`). */
  now?: (() => number) | undefined;
}

/** EventOptions are the optional parts of one Event. */
export interface EventOptions {
  /** action is what was done or failed (default: the reason). */
  action?: string | undefined;
  /** related is a second object the event is about (e.g. the Pod a controller created). */
  related?: KubernetesObject | ObjectReference | undefined;
}

/** EventRecorderStats count what a recorder did since it was made. */
export interface EventRecorderStats {
  /** recorded: calls that made an Event or counted into one. */
  recorded: number;
  created: number;
  /** patched: series updates of existing Events. */
  patched: number;
  /** spamFiltered: occurrences counted but not sent (the object's spam bucket was empty). */
  spamFiltered: number;
  /** dropped: occurrences lost because the queue was full, the recorder closed, or the object had no kind or name. */
  dropped: number;
  /** failed: creates and patches the server refused or that did not reach it (logged, not retried here). */
  failed: number;
  queued: number;
}

const NAME_LIMIT = 128;
const NOTE_LIMIT_BYTES = 1024;

function truncateBytes(text: string, limit: number): string {
  if (Buffer.byteLength(text) <= limit) return text;
  let cut = Buffer.from(text).subarray(0, limit).toString('utf8');
  // A character cut in half decodes to U+FFFD: drop it.
  while (cut.endsWith('\uFFFD') || Buffer.byteLength(cut) > limit) cut = cut.slice(0, -1);
  return cut;
}

/**
 * referenceOf makes the `ObjectReference` of an object (its apiVersion, kind, namespace, name,
 * uid and resourceVersion), or returns a reference as given.
 */
export function referenceOf(object: KubernetesObject | ObjectReference): ObjectReference {
  if (!('metadata' in object) || object.metadata === undefined) return object;
  const { metadata } = object;
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    ...(metadata?.namespace ? { namespace: metadata.namespace } : {}),
    name: metadata?.name,
    ...(metadata?.uid ? { uid: metadata.uid } : {}),
    ...(metadata?.resourceVersion ? { resourceVersion: metadata.resourceVersion } : {}),
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * EventRecorder records `events.k8s.io/v1` Events (or core v1 Events, see `apiVersion`) about
 * objects (client-go's event recorder):
 * `recorder.normal(widget, 'Created', 'created deployment web')`,
 * `recorder.warning(widget, 'ReconcileFailed', error.message)`.
 *
 * Recording never blocks and never throws: the call correlates the event (an
 * {@link EventCorrelator}: repeats count into one Event's series, many different notes of one
 * kind are combined, a spam filter per object) and queues it; one background sender creates the
 * Event, or patches its `series` with the count so far, one request at a time. The queue is
 * bounded (`maxQueued`, deduplicated per Event, so a burst of repeats costs one request); what
 * does not fit is dropped. Failures are logged (a warning) and counted in `stats()`, not retried
 * here (@k/rest retries what is safe to retry); an Event the server already forgot (404 on the
 * patch) is created again. An Event is written to the object's namespace (`default` for
 * cluster-scoped objects). `close()` (a Manager's `closeOnShutdown`) sends what is queued.
 */
export class EventRecorder {
  readonly #sink: EventSink;
  readonly #correlator: EventCorrelator;
  readonly #controller: string;
  readonly #instance: string;
  readonly #maxQueued: number;
  readonly #requestTimeoutMs: number;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #queue = new Map<string, CorrelatedEvent>();
  readonly #stats: Omit<EventRecorderStats, 'queued'> = {
    recorded: 0,
    created: 0,
    patched: 0,
    spamFiltered: 0,
    dropped: 0,
    failed: 0,
  };
  #sending: Promise<void> | undefined;
  #closed = false;
  #sequence = 0;

  constructor(source: EventsClientSource, options: EventRecorderOptions) {
    this.#controller = options.reportingController;
    this.#instance = truncateBytes(
      options.reportingInstance ?? `${options.reportingController}-${hostname()}`,
      NAME_LIMIT,
    );
    const reporter = { controller: this.#controller, instance: this.#instance };
    const core = options.apiVersion === 'v1';
    if (core && !source.coreV1) {
      throw new RuntimeError(
        'ERR_RUNTIME_INVALID_ARGUMENT',
        "an EventRecorder with apiVersion 'v1' needs a source with coreV1.events(namespace) (a Clientset)",
      );
    }
    this.#sink = core ? coreV1Sink(source, reporter) : eventsV1Sink(source, reporter);
    this.#correlator = new EventCorrelator(`${this.#controller}\u0000${this.#instance}`, {
      ...options,
      seriesWindowMs: options.seriesWindowMs ?? (core ? Infinity : undefined),
    });
    this.#maxQueued = options.maxQueued ?? 1000;
    this.#requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    this.#logger = options.logger ?? SILENT_LOGGER;
    this.#now = options.now ?? Date.now;
  }

  /** normal records a `Normal` event about `regarding` (see {@link event}). */
  normal(
    regarding: KubernetesObject | ObjectReference,
    reason: string,
    note: string,
    options?: EventOptions,
  ): void {
    this.event(regarding, 'Normal', reason, note, options);
  }

  /** warning records a `Warning` event about `regarding` (see {@link event}). */
  warning(
    regarding: KubernetesObject | ObjectReference,
    reason: string,
    note: string,
    options?: EventOptions,
  ): void {
    this.event(regarding, 'Warning', reason, note, options);
  }

  /**
   * event records that `reason` happened to `regarding` (an object with `apiVersion`, `kind` and
   * `metadata.name`, or a reference), with a human-readable `note` (cut at 1 kB). Returns at once.
   */
  event(
    regarding: KubernetesObject | ObjectReference,
    type: EventType,
    reason: string,
    note: string,
    options: EventOptions = {},
  ): void {
    try {
      this.#record(regarding, type, reason, note, options);
    } catch (error) {
      this.#stats.dropped += 1;
      this.#logger.warn('could not record an event', { reason, error: messageOf(error) });
    }
  }

  #record(
    regarding: KubernetesObject | ObjectReference,
    type: EventType,
    reason: string,
    note: string,
    options: EventOptions,
  ): void {
    const reference = referenceOf(regarding);
    if (this.#closed || !reference.kind || !reference.name || !reason) {
      this.#stats.dropped += 1;
      this.#logger.warn(
        this.#closed
          ? 'event recorded after close; dropped'
          : 'event without a kind, name or reason; dropped',
        { reason, kind: reference.kind, name: reference.name },
      );
      return;
    }
    const event: RecordedEvent = {
      type,
      reason: reason.slice(0, NAME_LIMIT),
      action: (options.action ?? reason).slice(0, NAME_LIMIT),
      note: truncateBytes(note, NOTE_LIMIT_BYTES),
      regarding: reference,
      ...(options.related ? { related: referenceOf(options.related) } : {}),
    };
    this.#stats.recorded += 1;
    const { send, entry } = this.#correlator.correlate(event, this.#now());
    if (!send) {
      this.#stats.spamFiltered += 1;
      return;
    }
    if (!this.#queue.has(entry.key) && this.#queue.size >= this.#maxQueued) {
      this.#stats.dropped += 1;
      this.#logger.warn('event queue full; event dropped', { reason, name: reference.name });
      return;
    }
    this.#queue.set(entry.key, entry);
    // Sending starts after the caller's synchronous work, so a burst of repeats is one request.
    this.#sending ??= Promise.resolve()
      .then(() => this.#send())
      .finally(() => (this.#sending = undefined));
  }

  /** stats counts what the recorder did (see {@link EventRecorderStats}). */
  stats(): EventRecorderStats {
    return { ...this.#stats, queued: this.#queue.size };
  }

  /** flush resolves once every queued Event was sent (or failed). */
  async flush(): Promise<void> {
    while (this.#sending) await this.#sending;
  }

  /** close stops recording (later events are dropped) and sends what is queued, for up to `timeoutMs` (default 10 s). */
  async close(timeoutMs = 10_000): Promise<void> {
    this.#closed = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.flush(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (this.#queue.size > 0) {
      this.#stats.dropped += this.#queue.size;
      this.#logger.warn('events not sent at close', { events: this.#queue.size });
      this.#queue.clear();
    }
  }

  async #send(): Promise<void> {
    for (;;) {
      const next = this.#queue.entries().next();
      if (next.done) return;
      const [key, entry] = next.value;
      this.#queue.delete(key);
      try {
        await this.#write(entry);
      } catch (error) {
        this.#stats.failed += 1;
        this.#logger.warn('could not write an event', {
          reason: entry.event.reason,
          name: entry.event.regarding.name,
          error: messageOf(error),
        });
      }
    }
  }

  async #write(entry: CorrelatedEvent): Promise<void> {
    const options = { timeoutMs: this.#requestTimeoutMs };
    if (entry.name !== undefined) {
      try {
        await this.#sink.update(entry, options);
        this.#stats.patched += 1;
        return;
      } catch (error) {
        if (!isNotFound(error)) throw error;
        entry.name = undefined; // expired on the server (Events live an hour): create it again
      }
    }
    const name = `${entry.event.regarding.name}.${(BigInt(this.#now()) * 1_000_000n + BigInt(this.#sequence++ % 1_000_000)).toString(16)}`;
    await this.#sink.create(entry, name, options);
    entry.name = name;
    this.#stats.created += 1;
  }
}
