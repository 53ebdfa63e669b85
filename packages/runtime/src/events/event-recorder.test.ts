import type { Event as CoreEvent } from '@k/clientset/core/v1';
import type { Event } from '@k/clientset/events/v1';
import { ApiError } from '@k/rest';
import { RuntimeError } from '../errors.js';
import { describe, expect, it } from 'vitest';
import type { Logger } from '../logger.js';
import { EventRecorder } from './event-recorder.js';
import type { CoreEventsClient, EventsClient } from './event-sinks.js';

// The recorder's queueing and request choices against an in-memory Events store that records
// each call (and can refuse); e2e/events.e2e.test.ts proves the same on the real API server.

class MemoryEvents {
  readonly calls: { verb: 'create' | 'patch'; namespace: string; name: string; body: unknown }[] =
    [];
  readonly stored = new Map<string, unknown>();
  failWith: Error | undefined;
  #waiting: Promise<void> = Promise.resolve();

  /** hold makes every call wait until the returned function is called. */
  hold(): () => void {
    let release: () => void = () => {};
    this.#waiting = new Promise((resolve) => (release = resolve));
    return release;
  }

  #client<E extends { metadata?: { name?: string } }>(namespace: string) {
    return {
      create: async (event: E) => {
        await this.#waiting;
        this.calls.push({ verb: 'create', namespace, name: event.metadata!.name!, body: event });
        if (this.failWith) throw this.failWith;
        this.stored.set(`${namespace}/${event.metadata!.name!}`, event);
        return event;
      },
      patch: async (name: string, _type: 'merge', body: Partial<E>) => {
        await this.#waiting;
        this.calls.push({ verb: 'patch', namespace, name, body });
        if (this.failWith) throw this.failWith;
        const stored = this.stored.get(`${namespace}/${name}`) as E | undefined;
        if (!stored) throw notFound();
        Object.assign(stored, body);
        return stored;
      },
    };
  }

  source = {
    eventsV1: { events: (namespace: string): EventsClient => this.#client<Event>(namespace) },
    coreV1: {
      events: (namespace: string): CoreEventsClient => this.#client<CoreEvent>(namespace),
    },
  };
}

function notFound(): ApiError {
  return new ApiError(
    {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'NotFound',
      code: 404,
      message: 'events "x" not found',
    },
    { httpStatusCode: 404 },
  );
}

const WIDGET = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'a', uid: 'uid-w', resourceVersion: '7' },
};

const WIDGET_REFERENCE = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  namespace: 'a',
  name: 'w',
  uid: 'uid-w',
  resourceVersion: '7',
};

function memoryEventsV1(): { events(namespace: string): EventsClient } {
  return new MemoryEvents().source.eventsV1;
}

function warnings(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const drop = (): void => {};
  return {
    lines,
    logger: { debug: drop, info: drop, error: drop, warn: (message) => void lines.push(message) },
  };
}

describe('EventRecorder', () => {
  it('creates an events.k8s.io/v1 Event about the object, in its namespace', async () => {
    const memory = new MemoryEvents();
    const recorder = new EventRecorder(memory.source, {
      reportingController: 'example.com/widgets',
      reportingInstance: 'widgets-1',
      now: () => Date.UTC(2026, 0, 2, 3, 4, 5, 678),
    });
    recorder.normal(WIDGET, 'Created', 'created deployment w', {
      related: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'a', name: 'w' },
    });
    await recorder.flush();
    expect(memory.calls).toHaveLength(1);
    const [call] = memory.calls;
    expect(call).toMatchObject({ verb: 'create', namespace: 'a' });
    expect(call!.name).toMatch(/^w\.[0-9a-f]+$/);
    expect(call!.body).toEqual({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: call!.name, namespace: 'a' },
      eventTime: '2026-01-02T03:04:05.678000Z',
      type: 'Normal',
      reason: 'Created',
      action: 'Created',
      note: 'created deployment w',
      regarding: WIDGET_REFERENCE,
      related: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'a', name: 'w' },
      reportingController: 'example.com/widgets',
      reportingInstance: 'widgets-1',
    });
  });

  it('returns at once, and turns a burst of repeats into one request with the count', async () => {
    const memory = new MemoryEvents();
    const recorder = new EventRecorder(memory.source, { reportingController: 'widgets' });
    for (let index = 0; index < 20; index += 1) recorder.warning(WIDGET, 'Failed', 'no quota');
    expect(memory.calls).toHaveLength(0); // nothing was sent while the caller ran
    await recorder.flush();
    expect(memory.calls).toHaveLength(1);
    expect(memory.calls[0]!.body).toMatchObject({ series: { count: 20 } });

    recorder.warning(WIDGET, 'Failed', 'no quota');
    await recorder.flush();
    expect(memory.calls[1]).toMatchObject({
      verb: 'patch',
      name: memory.calls[0]!.name,
      body: { series: { count: 21 } },
    });
    expect(recorder.stats()).toMatchObject({ recorded: 21, created: 1, patched: 1, failed: 0 });
  });

  it('patches repeats that arrive while a request is out, coalesced into one patch', async () => {
    const memory = new MemoryEvents();
    const recorder = new EventRecorder(memory.source, { reportingController: 'widgets' });
    const release = memory.hold();
    recorder.normal(WIDGET, 'Synced', 'in sync');
    await new Promise((resolve) => setImmediate(resolve)); // the create is out
    recorder.normal(WIDGET, 'Synced', 'in sync');
    recorder.normal(WIDGET, 'Synced', 'in sync');
    release();
    await recorder.flush();
    expect(memory.calls.map((call) => call.verb)).toEqual(['create', 'patch']);
    expect(memory.calls[1]!.body).toMatchObject({ series: { count: 3 } });
  });

  it('creates the Event again when the server forgot it', async () => {
    const memory = new MemoryEvents();
    const recorder = new EventRecorder(memory.source, { reportingController: 'widgets' });
    recorder.normal(WIDGET, 'Synced', 'in sync');
    await recorder.flush();
    memory.stored.clear(); // the server's TTL removed it
    recorder.normal(WIDGET, 'Synced', 'in sync');
    await recorder.flush();
    expect(memory.calls.map((call) => call.verb)).toEqual(['create', 'patch', 'create']);
    expect(memory.calls[2]!.body).toMatchObject({ series: { count: 2 } });
  });

  it('logs failures and counts them, never throwing to the caller', async () => {
    const memory = new MemoryEvents();
    memory.failWith = new Error('connection refused');
    const { logger, lines } = warnings();
    const recorder = new EventRecorder(memory.source, { reportingController: 'widgets', logger });
    expect(() => recorder.normal(WIDGET, 'Synced', 'in sync')).not.toThrow();
    await recorder.flush();
    expect(recorder.stats()).toMatchObject({ failed: 1, created: 0 });
    expect(lines).toEqual(['could not write an event']);
    // Objects it cannot refer to are dropped with a warning, not thrown.
    expect(() => recorder.normal({ metadata: { name: 'x' } }, 'Synced', 'in sync')).not.toThrow();
    expect(() => recorder.normal(null as never, 'Synced', 'in sync')).not.toThrow();
    expect(recorder.stats().dropped).toBe(2);
  });

  it('bounds its queue: what does not fit is dropped', async () => {
    const memory = new MemoryEvents();
    const { logger, lines } = warnings();
    const recorder = new EventRecorder(memory.source, {
      reportingController: 'widgets',
      maxQueued: 3,
      logger,
    });
    const release = memory.hold();
    for (let index = 0; index < 6; index += 1) {
      recorder.normal(
        { ...WIDGET, metadata: { ...WIDGET.metadata, name: `w${index}` } },
        'Synced',
        'ok',
      );
    }
    release();
    await recorder.flush();
    // Three waited; three did not fit.
    expect(memory.calls).toHaveLength(3);
    expect(recorder.stats()).toMatchObject({ dropped: 3, created: 3 });
    expect(lines).toEqual(Array(3).fill('event queue full; event dropped'));
  });

  it('cuts the note at 1 kB on a character boundary, and the reason and action at 128 characters', async () => {
    const memory = new MemoryEvents();
    const recorder = new EventRecorder(memory.source, { reportingController: 'widgets' });
    recorder.normal(WIDGET, 'R'.repeat(200), 'é'.repeat(600));
    await recorder.flush();
    const body = memory.calls[0]!.body as Event;
    expect(Buffer.byteLength(body.note!)).toBe(1024);
    expect(body.note).toBe('é'.repeat(512));
    expect(body.reason).toHaveLength(128);
    expect(body.action).toHaveLength(128);
  });

  it('sends what is queued at close, then drops later events', async () => {
    const memory = new MemoryEvents();
    const recorder = new EventRecorder(memory.source, { reportingController: 'widgets' });
    recorder.normal(WIDGET, 'Synced', 'in sync');
    await recorder.close();
    expect(memory.calls).toHaveLength(1);
    recorder.normal(WIDGET, 'Synced', 'again');
    await recorder.flush();
    expect(memory.calls).toHaveLength(1);
    expect(recorder.stats().dropped).toBe(1);
  });
});

describe('EventRecorder writing core v1 Events (apiVersion v1)', () => {
  it('creates a core v1 Event as client-go’s tools/record does', async () => {
    const memory = new MemoryEvents();
    const recorder = new EventRecorder(memory.source, {
      apiVersion: 'v1',
      reportingController: 'example.com/widgets',
      reportingInstance: 'widgets-1',
      now: () => Date.UTC(2026, 0, 2, 3, 4, 5, 678),
    });
    recorder.warning(WIDGET, 'Failed', 'no quota', { action: 'Reconcile' });
    await recorder.flush();
    const [call] = memory.calls;
    expect(call).toMatchObject({ verb: 'create', namespace: 'a' });
    expect(call!.body).toEqual({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: call!.name, namespace: 'a' },
      involvedObject: WIDGET_REFERENCE,
      type: 'Warning',
      reason: 'Failed',
      action: 'Reconcile',
      message: 'no quota',
      count: 1,
      firstTimestamp: '2026-01-02T03:04:05Z',
      lastTimestamp: '2026-01-02T03:04:05Z',
      source: { component: 'example.com/widgets' },
      reportingComponent: 'example.com/widgets',
      reportingInstance: 'widgets-1',
    });
  });

  it('counts repeats into the Event with count and lastTimestamp, however late they come', async () => {
    let now = Date.UTC(2026, 0, 2, 3, 0, 0);
    const memory = new MemoryEvents();
    const recorder = new EventRecorder(memory.source, {
      apiVersion: 'v1',
      reportingController: 'widgets',
      now: () => now,
    });
    for (let index = 0; index < 3; index += 1) recorder.normal(WIDGET, 'Synced', 'in sync');
    await recorder.flush();
    expect(memory.calls[0]!.body).toMatchObject({ count: 3 });
    now += 7 * 60_000; // past the events.k8s.io series window of 6 minutes
    recorder.normal(WIDGET, 'Synced', 'in sync');
    await recorder.flush();
    expect(memory.calls.slice(1)).toEqual([
      {
        verb: 'patch',
        namespace: 'a',
        name: memory.calls[0]!.name,
        body: { count: 4, lastTimestamp: '2026-01-02T03:07:00Z' },
      },
    ]);
    expect(recorder.stats()).toMatchObject({ created: 1, patched: 1 });
  });

  it('starts a new events.k8s.io Event after the series window, for contrast', async () => {
    let now = Date.UTC(2026, 0, 2, 3, 0, 0);
    const memory = new MemoryEvents();
    const recorder = new EventRecorder(memory.source, {
      reportingController: 'widgets',
      now: () => now,
    });
    recorder.normal(WIDGET, 'Synced', 'in sync');
    await recorder.flush();
    now += 7 * 60_000;
    recorder.normal(WIDGET, 'Synced', 'in sync');
    await recorder.flush();
    expect(memory.calls.map((call) => call.verb)).toEqual(['create', 'create']);
  });

  it('needs a source with core v1 Events', () => {
    expect(
      () =>
        new EventRecorder(
          { eventsV1: memoryEventsV1() },
          { apiVersion: 'v1', reportingController: 'widgets' },
        ),
    ).toThrow(RuntimeError);
  });
});
