import { describe, expect, it } from 'vitest';
import { COMBINED_PREFIX, EventCorrelator, type RecordedEvent } from './event-correlator.js';

const MINUTE = 60_000;

function event(name: string, note = 'created deployment', reason = 'Created'): RecordedEvent {
  return {
    type: 'Normal',
    reason,
    action: reason,
    note,
    regarding: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', name, uid: `uid-${name}` },
  };
}

describe('EventCorrelator', () => {
  it('counts an identical repeat into one series, and starts a new Event after the series window', () => {
    const correlator = new EventCorrelator('me');
    const first = correlator.correlate(event('x'), 0).entry;
    expect(correlator.correlate(event('x'), 1_000).entry).toBe(first);
    expect(correlator.correlate(event('x'), 6 * MINUTE).entry).toBe(first);
    expect(first).toMatchObject({ count: 3, firstAt: 0, lastAt: 6 * MINUTE });

    const later = correlator.correlate(event('x'), 12 * MINUTE + 1).entry;
    expect(later).not.toBe(first);
    expect(later.count).toBe(1);
  });

  it('keeps events apart by object, type, reason and note', () => {
    const correlator = new EventCorrelator('me');
    const keys = new Set(
      [
        event('x'),
        event('y'),
        event('x', 'other note'),
        event('x', 'created deployment', 'Updated'),
        { ...event('x'), type: 'Warning' as const },
        { ...event('x'), related: { kind: 'Pod', name: 'p' } },
      ].map((recorded) => correlator.correlate(recorded, 0).entry.key),
    );
    expect(keys.size).toBe(6);
  });

  it('combines more than 10 different notes of one kind within 10 minutes into one Event', () => {
    const correlator = new EventCorrelator('me');
    const entries = Array.from(
      { length: 10 },
      (_, index) => correlator.correlate(event('x', `failed: ${index}`), index).entry,
    );
    expect(new Set(entries).size).toBe(10);
    expect(entries.every((entry) => !entry.event.note.startsWith(COMBINED_PREFIX))).toBe(true);

    const combined = correlator.correlate(event('x', 'failed: 10'), 100).entry;
    expect(combined.event.note).toBe(`${COMBINED_PREFIX}failed: 10`);
    expect(correlator.correlate(event('x', 'failed: 11'), 200).entry).toBe(combined);
    expect(combined.count).toBe(2);
    // A note seen before still counts into its own Event.
    expect(correlator.correlate(event('x', 'failed: 3'), 300).entry).toBe(entries[3]);
    // Another object is not affected.
    expect(correlator.correlate(event('y', 'failed: 10'), 300).entry.event.note).toBe('failed: 10');
    // After the interval without any of them, notes are kept apart again.
    const fresh = correlator.correlate(event('x', 'failed: 12'), 300 + 10 * MINUTE + 1).entry;
    expect(fresh.event.note).toBe('failed: 12');
  });

  it('lets 25 events per object through at once, then one every 5 minutes, and counts the rest', () => {
    const correlator = new EventCorrelator('me');
    const sent = Array.from({ length: 30 }, () => correlator.correlate(event('x'), 0).send);
    expect(sent.filter(Boolean)).toHaveLength(25);
    expect(sent.slice(25)).toEqual([false, false, false, false, false]);
    expect(correlator.correlate(event('y'), 0).send).toBe(true);
    expect(correlator.correlate(event('x'), 5 * MINUTE - 1).send).toBe(false);
    const refilled = correlator.correlate(event('x'), 5 * MINUTE + 1);
    expect(refilled.send).toBe(true);
    // Filtered occurrences counted: the one sent carries the true count.
    expect(refilled.entry.count).toBe(32);
    expect(correlator.correlate(event('x'), 5 * MINUTE + 2).send).toBe(false);
  });

  it('keeps each cache to maxEntries, forgetting the least recently used', () => {
    const correlator = new EventCorrelator('me', { maxEntries: 2 });
    const a = correlator.correlate(event('a'), 0).entry;
    correlator.correlate(event('b'), 0);
    correlator.correlate(event('a'), 1); // a is now the most recent
    correlator.correlate(event('c'), 2); // b goes
    expect(correlator.correlate(event('a'), 3).entry).toBe(a);
    expect(correlator.correlate(event('b'), 4).entry.count).toBe(1);
  });
});
