import type { ObjectReference } from '@k/clientset/core/v1';

/** EventType is an Event's type: `Normal` for what is expected, `Warning` for what needs a look. */
export type EventType = 'Normal' | 'Warning';

/** RecordedEvent is what a recorder was asked to record, before correlation. */
export interface RecordedEvent {
  type: EventType;
  reason: string;
  action: string;
  note: string;
  regarding: ObjectReference;
  related?: ObjectReference | undefined;
}

/**
 * CorrelatedEvent is one Event on the server as the correlator tracks it: `count` occurrences
 * since `firstAt`, the last at `lastAt` (wall-clock milliseconds). The recorder keeps `name` once
 * the server created it.
 */
export interface CorrelatedEvent {
  readonly key: string;
  readonly event: RecordedEvent;
  count: number;
  readonly firstAt: number;
  lastAt: number;
  name: string | undefined;
}

/** Correlation is the Event an occurrence counts into, and whether the spam filter lets it be sent now. */
export interface Correlation {
  send: boolean;
  entry: CorrelatedEvent;
}

/** EventCorrelatorOptions tune a {@link EventCorrelator} (client-go's defaults). */
export interface EventCorrelatorOptions {
  /** maxEntries bounds each cache (least recently used first out; default 4096). */
  maxEntries?: number | undefined;
  /** aggregateMaxEvents: this many different notes of one kind of event within the interval are combined (default 10). */
  aggregateMaxEvents?: number | undefined;
  /** aggregateIntervalMs is the aggregation window (default 10 minutes). */
  aggregateIntervalMs?: number | undefined;
  /** seriesWindowMs: a repeat within this long after the last one joins its series, later ones start a new Event (default 6 minutes). */
  seriesWindowMs?: number | undefined;
  /** spamBurst events per object and reporter are sent at once (default 25) … */
  spamBurst?: number | undefined;
  /** … then one every `spamRefillMs` (default 5 minutes). */
  spamRefillMs?: number | undefined;
}

/** COMBINED_PREFIX starts the note of an Event combined from similar ones (client-go's text). */
export const COMBINED_PREFIX = '(combined from similar events): ';

function referenceKey(reference: ObjectReference | undefined): string {
  if (!reference) return '';
  return [
    reference.apiVersion,
    reference.kind,
    reference.namespace,
    reference.name,
    reference.uid,
    reference.fieldPath,
  ].join('\u0000');
}

/** LruMap is a Map that forgets its least recently used entry beyond `limit`. */
class LruMap<V> {
  readonly #entries = new Map<string, V>();
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  get(key: string): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#limit) {
      this.#entries.delete(this.#entries.keys().next().value as string);
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}

/**
 * EventCorrelator is client-go's event correlation (tools/record's EventCorrelator) for
 * events.k8s.io/v1 series, pure and on an injected clock:
 * 1. aggregation: when one object gets more than `aggregateMaxEvents` events of the same type,
 *    reason, action and reporter with different notes within `aggregateIntervalMs`, the rest
 *    are combined into one Event whose note starts with {@link COMBINED_PREFIX};
 * 2. series: an identical event (the same object, related object, type, reason, action, note
 *    and reporter) repeated within `seriesWindowMs` of the last one counts into the existing
 *    Event (`series.count`, `series.lastObservedTime`) instead of creating another;
 * 3. spam filter: per object and reporter a token bucket (burst 25, one more every 5 minutes)
 *    decides whether this occurrence is sent now; one that is not still counts, so the next
 *    one sent carries the true count.
 */
export class EventCorrelator {
  readonly #aggregates: LruMap<{ notes: Set<string>; lastAt: number }>;
  readonly #series: LruMap<CorrelatedEvent>;
  readonly #buckets: LruMap<{ tokens: number; at: number }>;
  readonly #aggregateMaxEvents: number;
  readonly #aggregateIntervalMs: number;
  readonly #seriesWindowMs: number;
  readonly #spamBurst: number;
  readonly #spamRefillMs: number;
  readonly #reporter: string;

  constructor(reporter: string, options: EventCorrelatorOptions = {}) {
    const maxEntries = options.maxEntries ?? 4096;
    this.#aggregates = new LruMap(maxEntries);
    this.#series = new LruMap(maxEntries);
    this.#buckets = new LruMap(maxEntries);
    this.#aggregateMaxEvents = options.aggregateMaxEvents ?? 10;
    this.#aggregateIntervalMs = options.aggregateIntervalMs ?? 10 * 60_000;
    this.#seriesWindowMs = options.seriesWindowMs ?? 6 * 60_000;
    this.#spamBurst = options.spamBurst ?? 25;
    this.#spamRefillMs = options.spamRefillMs ?? 5 * 60_000;
    this.#reporter = reporter;
  }

  /** correlate records one occurrence of `event` at wall-clock time `now` (milliseconds). */
  correlate(event: RecordedEvent, now: number): Correlation {
    const objectKey = `${this.#reporter}\u0001${referenceKey(event.regarding)}`;
    const similarKey = [
      objectKey,
      referenceKey(event.related),
      event.type,
      event.reason,
      event.action,
    ].join('\u0001');
    const combined = this.#aggregate(similarKey, event.note, now);
    const recorded = combined ? { ...event, note: `${COMBINED_PREFIX}${event.note}` } : event;
    const key = combined ? similarKey : `${similarKey}\u0001${event.note}`;

    let entry = this.#series.get(key);
    if (entry && now - entry.lastAt <= this.#seriesWindowMs) {
      entry.count += 1;
      entry.lastAt = now;
    } else {
      entry = { key, event: recorded, count: 1, firstAt: now, lastAt: now, name: undefined };
      this.#series.set(key, entry);
    }
    return { send: this.#accept(objectKey, now), entry };
  }

  /** #aggregate notes one more note of a kind of event; true once they are too many to keep apart. */
  #aggregate(similarKey: string, note: string, now: number): boolean {
    let record = this.#aggregates.get(similarKey);
    if (!record || now - record.lastAt > this.#aggregateIntervalMs) {
      record = { notes: new Set(), lastAt: now };
      this.#aggregates.set(similarKey, record);
    }
    record.lastAt = now;
    if (record.notes.has(note)) return false;
    if (record.notes.size < this.#aggregateMaxEvents) {
      record.notes.add(note);
      return false;
    }
    return true;
  }

  /** #accept takes a token of the object's bucket if there is one (x/time/rate's TryAccept). */
  #accept(objectKey: string, now: number): boolean {
    let bucket = this.#buckets.get(objectKey);
    if (!bucket) {
      bucket = { tokens: this.#spamBurst, at: now };
      this.#buckets.set(objectKey, bucket);
    }
    bucket.tokens = Math.min(
      this.#spamBurst,
      bucket.tokens + Math.max(0, now - bucket.at) / this.#spamRefillMs,
    );
    bucket.at = now;
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}
