import { FakeClock, flushMicrotasks } from '@k/rest/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MetricsSink } from '../metrics/metrics-sink.js';
import { ItemExponentialFailureRateLimiter } from './rate-limiters.js';
import { Workqueue } from './workqueue.js';

function queue(clock = new FakeClock()): { queue: Workqueue<string>; clock: FakeClock } {
  return {
    clock,
    queue: new Workqueue<string>({
      clock,
      rateLimiter: new ItemExponentialFailureRateLimiter(100, 10_000),
    }),
  };
}

describe('Workqueue', () => {
  it('queues a key once however often it is added (client-go TestCollapse)', async () => {
    const { queue: q } = queue();
    q.add('a');
    q.add('a');
    q.add('b');
    expect(q.length).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
    expect(q.length).toBe(0);
  });

  it('never hands a key in progress to a second worker; re-added, it comes back after done (TestAddWhileProcessing)', async () => {
    const { queue: q } = queue();
    q.add('a');
    const first = await q.get();
    q.add('a');
    q.add('a');
    expect(q.length).toBe(0);
    let second: string | undefined;
    void q.get().then((key) => (second = key));
    await flushMicrotasks();
    expect(second).toBeUndefined();
    q.done(first!);
    await flushMicrotasks();
    expect(second).toBe('a');
    q.done('a');
    expect(q.length).toBe(0);
    expect(q.processing).toBe(0);
  });

  it('serves waiting workers in the order they asked', async () => {
    const { queue: q } = queue();
    const got: string[] = [];
    const workers = [1, 2, 3].map((worker) => q.get().then((key) => got.push(`${worker}:${key}`)));
    q.add('x');
    q.add('y');
    q.add('z');
    await Promise.all(workers);
    expect(got).toEqual(['1:x', '2:y', '3:z']);
  });

  it('delays keys, keeps the earlier of two times, and drops waiting keys on shutdown', async () => {
    const { queue: q, clock } = queue();
    q.addAfter('late', 1000);
    q.addAfter('soon', 500);
    q.addAfter('late', 200);
    q.addAfter('soon', 900);
    expect(q.delayed).toBe(2);
    await clock.advance(199);
    expect(q.length).toBe(0);
    await clock.advance(1);
    expect(q.length).toBe(1);
    expect(await q.get()).toBe('late');
    await clock.advance(300);
    expect(await q.get()).toBe('soon');
    q.addAfter('never', 100);
    q.shutDown();
    await clock.advance(1000);
    expect(q.length).toBe(0);
    expect(clock.pendingTimers).toBe(0);
    expect(await q.get()).toBeUndefined();
  });

  it('addRateLimited waits as the limiter says; forget starts the backoff over', async () => {
    const { queue: q, clock } = queue();
    q.addRateLimited('a');
    await clock.advance(99);
    expect(q.length).toBe(0);
    await clock.advance(1);
    expect(q.length).toBe(1);
    q.done((await q.get())!);
    q.addRateLimited('a');
    expect(q.numRequeues('a')).toBe(2);
    await clock.advance(199);
    expect(q.length).toBe(0);
    await clock.advance(1);
    q.done((await q.get())!);
    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
    q.addRateLimited('a');
    await clock.advance(100);
    expect(q.length).toBe(1);
  });

  it('shutDown abandons queued keys and releases waiting workers', async () => {
    const { queue: q } = queue();
    const waiting = q.get();
    q.shutDown();
    expect(await waiting).toBeUndefined();
    q.add('ignored');
    expect(q.length).toBe(0);
    expect(await q.get()).toBeUndefined();
  });

  it('shutDownWithDrain hands out what is queued, waits for done, re-adds included', async () => {
    const { queue: q } = queue();
    q.add('a');
    q.add('b');
    const a = await q.get();
    q.add('a'); // re-added while in progress: must still be processed
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => (drained = true));
    q.add('c'); // after shutdown: ignored
    expect(await q.get()).toBe('b');
    q.done('b');
    await flushMicrotasks();
    expect(drained).toBe(false);
    q.done(a!);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBeUndefined();
    await flushMicrotasks();
    expect(drained).toBe(false);
    q.done('a');
    await drain;
    expect(drained).toBe(true);
  });

  it('shutDownWithDrain gives up on a signal and abandons the rest', async () => {
    const { queue: q } = queue();
    q.add('a');
    q.add('b');
    await q.get();
    const controller = new AbortController();
    const drain = q.shutDownWithDrain(controller.signal);
    controller.abort();
    await drain;
    expect(q.length).toBe(0);
    expect(await q.get()).toBeUndefined();
  });

  it('records client-go workqueue metrics under the queue name', async () => {
    const recorded: string[] = [];
    const gauges: { collect?: () => void }[] = [];
    const sink: MetricsSink = {
      counter: ({ name }) => ({ inc: (labels) => recorded.push(`${name}{${labels.name}}`) }),
      gauge: ({ name, collect }) => {
        const gauge = {
          set: (labels: Record<string, string>, value: number) =>
            recorded.push(`${name}{${labels.name}}=${value}`),
          inc: (labels: Record<string, string>) => recorded.push(`${name}{${labels.name}}+`),
          dec: (labels: Record<string, string>) => recorded.push(`${name}{${labels.name}}-`),
        };
        if (collect) gauges.push({ collect: () => collect(gauge) });
        return gauge;
      },
      histogram: ({ name }) => ({
        observe: (labels, value) => recorded.push(`${name}{${labels.name}}=${value}`),
      }),
    };
    const clock = new FakeClock();
    const q = new Workqueue<string>({ name: 'widgets', metrics: sink, clock });
    q.add('a');
    for (const gauge of gauges) gauge.collect?.(); // the gauges are read at scrape time
    await clock.advance(2000);
    const key = await q.get();
    await clock.advance(500);
    for (const gauge of gauges) gauge.collect?.();
    q.done(key!);
    q.addRateLimited('a');
    expect(recorded).toEqual([
      'workqueue_adds_total{widgets}',
      'workqueue_depth{widgets}=1',
      'workqueue_unfinished_work_seconds{widgets}=0',
      'workqueue_longest_running_processor_seconds{widgets}=0',
      'workqueue_queue_duration_seconds{widgets}=2',
      'workqueue_depth{widgets}=0',
      'workqueue_unfinished_work_seconds{widgets}=0.5',
      'workqueue_longest_running_processor_seconds{widgets}=0.5',
      'workqueue_work_duration_seconds{widgets}=0.5',
      'workqueue_retries_total{widgets}',
    ]);
  });
});

type Step =
  { kind: 'add'; key: string } | { kind: 'get'; worker: number } | { kind: 'done'; worker: number };

const KEYS = ['a', 'b', 'c', 'd'];

describe('Workqueue properties (fast-check)', () => {
  it('never gives one key to two workers, and processes every key after its last add', async () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), key: fc.constantFrom(...KEYS) }),
      fc.record({ kind: fc.constant('get' as const), worker: fc.integer({ min: 0, max: 3 }) }),
      fc.record({ kind: fc.constant('done' as const), worker: fc.integer({ min: 0, max: 3 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 80 }), async (steps: Step[]) => {
        const q = new Workqueue<string>();
        const holding = new Map<number, string>();
        const asking = new Set<number>();
        const held = new Set<string>();
        let time = 0;
        const lastAdd = new Map<string, number>();
        const lastStart = new Map<string, number>();
        const onKey = (worker: number, key: string | undefined): void => {
          asking.delete(worker);
          if (key === undefined) return;
          // The property: no key is held by two workers at once.
          expect(held.has(key)).toBe(false);
          held.add(key);
          holding.set(worker, key);
          lastStart.set(key, (time += 1));
        };
        const ask = (worker: number): void => {
          if (holding.has(worker) || asking.has(worker)) return;
          asking.add(worker);
          void q.get().then((key) => onKey(worker, key));
        };
        const finish = (worker: number): void => {
          const key = holding.get(worker);
          if (key === undefined) return;
          holding.delete(worker);
          held.delete(key);
          q.done(key);
        };
        for (const next of steps) {
          if (next.kind === 'add') {
            lastAdd.set(next.key, (time += 1));
            q.add(next.key);
          } else if (next.kind === 'get') ask(next.worker);
          else finish(next.worker);
          await flushMicrotasks();
        }
        // Then every worker keeps working until the queue is drained.
        for (let round = 0; round < 50 && (q.length > 0 || holding.size > 0); round += 1) {
          for (const worker of [0, 1, 2, 3]) {
            finish(worker);
            ask(worker);
          }
          await flushMicrotasks();
        }
        for (const [key, addedAt] of lastAdd) {
          expect(lastStart.get(key) ?? 0, `${key} processed after its last add`).toBeGreaterThan(
            addedAt,
          );
        }
        q.shutDown();
        await flushMicrotasks();
      }),
      { numRuns: 300 },
    );
  });

  it('hands out every distinct queued key exactly once when nothing is in progress', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...KEYS, 'e', 'f'), { maxLength: 40 }),
        async (adds) => {
          const q = new Workqueue<string>();
          for (const key of adds) q.add(key);
          const got: string[] = [];
          while (q.length > 0) got.push((await q.get())!);
          expect(got).toEqual([...new Set(adds)]);
        },
      ),
    );
  });
});

describe('Workqueue delay properties (fast-check)', () => {
  // (A key added without delay while a worker holds it comes back after done: the first property.)
  it('hands out each delayed key once, at the earliest time it was asked for, never before', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ key: fc.constantFrom(...KEYS), delayMs: fc.integer({ min: 1, max: 40 }) }),
          {
            minLength: 1,
            maxLength: 30,
          },
        ),
        async (adds) => {
          const clock = new FakeClock();
          const q = new Workqueue<string>({ clock });
          const handedOut: { key: string; at: number }[] = [];
          let stopped = false;
          const worker = (async () => {
            for (let key = await q.get(); key !== undefined; key = await q.get()) {
              handedOut.push({ key, at: clock.now() });
              q.done(key);
            }
            stopped = true;
          })();
          const start = clock.now();
          for (const { key, delayMs } of adds) q.addAfter(key, delayMs);
          for (let elapsed = 0; elapsed <= 45; elapsed += 1) {
            await flushMicrotasks();
            await clock.advance(1);
          }
          await flushMicrotasks();
          const earliest = new Map<string, number>();
          for (const { key, delayMs } of adds) {
            earliest.set(key, Math.min(earliest.get(key) ?? Infinity, delayMs));
          }
          expect(handedOut.map((each) => each.key).toSorted()).toEqual(
            [...earliest.keys()].toSorted(),
          );
          for (const { key, at } of handedOut) expect(at - start).toBe(earliest.get(key));
          q.shutDown();
          await worker;
          expect(stopped).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});
