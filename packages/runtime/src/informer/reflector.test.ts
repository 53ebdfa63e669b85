// The reflector's decisions on scripted list and watch answers (client-go's reflector_test.go
// does the same with a fake ListWatch); the real server's behaviour is in e2e/informer.e2e.test.ts.
import type { ConfigMap } from '@k/clientset/core/v1';
import type { KubernetesList, ListOptions, WatchOptions } from '@k/clientset';
import {
  ApiError,
  ConnectionError,
  type Watch,
  type WatchEncoding,
  type WatchEvent,
} from '@k/rest';
import { FakeClock, flushMicrotasks } from '@k/rest/testing';
import { describe, expect, it } from 'vitest';
import { Reflector, type ListerWatcher, type ReflectorSink } from './reflector.js';

const expired = (): ApiError =>
  new ApiError({
    kind: 'Status',
    status: 'Failure',
    code: 410,
    reason: 'Expired',
    message: 'too old',
  });
const tooMany = (): ApiError =>
  new ApiError({ kind: 'Status', status: 'Failure', code: 429, reason: 'TooManyRequests' });

const cm = (name: string, resourceVersion: string): ConfigMap => ({
  metadata: { name, namespace: 'ns', resourceVersion },
});

type WatchScript = (WatchEvent<ConfigMap> | Error)[];

/** ScriptedSource answers lists and watches from scripts, recording what was asked. */
class ScriptedSource implements ListerWatcher<ConfigMap> {
  readonly lists: ListOptions[] = [];
  readonly watches: WatchOptions[] = [];
  constructor(
    readonly listAnswers: (KubernetesList<ConfigMap> | Error)[],
    readonly watchAnswers: (WatchScript | Error)[],
    /** watchEncodings are the `encoding`s of the scripted watches, in order. */
    readonly watchEncodings: (WatchEncoding | undefined)[] = [],
  ) {}

  list(options: ListOptions = {}): Promise<KubernetesList<ConfigMap>> {
    this.lists.push(options);
    const answer = this.listAnswers.shift() ?? new Error('no more lists scripted');
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
  }

  watch(options: WatchOptions = {}): Promise<Watch<ConfigMap>> {
    this.watches.push(options);
    const answer = this.watchAnswers.shift();
    if (answer === undefined) {
      // Nothing more scripted: a watch that stays open until the reflector stops.
      return Promise.resolve(openWatch(options.signal));
    }
    if (answer instanceof Error) return Promise.reject(answer);
    return Promise.resolve(scriptedWatch(answer, this.watchEncodings.shift()));
  }
}

function scriptedWatch(script: WatchScript, encoding?: WatchEncoding): Watch<ConfigMap> {
  return {
    ...(encoding ? { encoding } : {}),
    close: () => undefined,
    async *[Symbol.asyncIterator]() {
      for (const step of script) {
        await Promise.resolve();
        if (step instanceof Error) throw step;
        yield step;
      }
    },
  };
}

function openWatch(signal: AbortSignal | undefined): Watch<ConfigMap> {
  return {
    close: () => undefined,
    async *[Symbol.asyncIterator](): AsyncGenerator<WatchEvent<ConfigMap>> {
      if (!signal?.aborted) {
        await new Promise((resolve) => signal?.addEventListener('abort', resolve, { once: true }));
      }
      yield* [];
    },
  };
}

class RecordingSink implements ReflectorSink<ConfigMap> {
  readonly calls: string[] = [];
  replace(items: ConfigMap[], resourceVersion: string): void {
    this.calls.push(
      `replace ${items.map((item) => item.metadata?.name).join(',')} @${resourceVersion}`,
    );
  }
  apply(type: string, object: ConfigMap): void {
    this.calls.push(`${type} ${object.metadata?.name}`);
  }
}

const list = (resourceVersion: string, names: string[] = [], next?: string) => ({
  metadata: { resourceVersion, ...(next ? { continue: next } : {}) },
  items: names.map((name) => cm(name, resourceVersion)),
});

/** advance moves the fake clock in 100 ms steps, letting the reflector's promises settle at each. */
async function advance(clock: FakeClock, milliseconds: number): Promise<void> {
  for (let left = milliseconds; left > 0; left -= 100) {
    await flushMicrotasks();
    await clock.advance(Math.min(100, left));
  }
}

function start(
  source: ScriptedSource,
  watchList = false,
  transform?: (object: ConfigMap, stringsShared: boolean) => ConfigMap,
  pageSize?: number,
) {
  const clock = new FakeClock();
  const sink = new RecordingSink();
  const errors: string[] = [];
  const reflector = new Reflector(source, sink, {
    description: 'configmaps',
    watchList,
    ...(transform ? { transform } : {}),
    ...(pageSize !== undefined ? { pageSize } : {}),
    clock,
    random: () => 0,
    onError: (error) => errors.push(error.code),
  });
  const controller = new AbortController();
  const running = reflector.run(controller.signal);
  return {
    clock,
    sink,
    errors,
    reflector,
    stop: async () => {
      controller.abort();
      await running;
    },
  };
}

describe('Reflector', () => {
  it('lists at "0", watches from the list with bookmarks and a timeout in [300, 600) s, and re-watches a closed watch without a relist', async () => {
    const source = new ScriptedSource(
      [list('10', ['a'])],
      [
        [
          { type: 'ADDED', object: cm('b', '11') },
          { type: 'BOOKMARK', object: { metadata: { resourceVersion: '15' } } },
        ],
      ],
    );
    const run = start(source);
    await advance(run.clock, 2000);
    await run.stop();
    expect(source.lists).toHaveLength(1);
    expect(source.lists[0]).toMatchObject({ resourceVersion: '0', limit: 500 });
    expect(source.watches.map((options) => options.resourceVersion)).toEqual(['10', '15']);
    for (const options of source.watches) {
      expect(options.allowWatchBookmarks).toBe(true);
      expect(options.timeoutSeconds).toBeGreaterThanOrEqual(300);
      expect(options.timeoutSeconds).toBeLessThan(600);
    }
    expect(run.sink.calls).toEqual(['replace a @10', 'ADDED b']);
    expect(run.reflector.health.watchRestarts).toBe(1);
  });

  it('G4: relists at the last resourceVersion after 410, then at "" when that is expired too', async () => {
    const source = new ScriptedSource(
      [list('10', ['a']), expired(), list('30', ['a', 'b'])],
      [[{ type: 'MODIFIED', object: cm('a', '20') }, expired()]],
    );
    const run = start(source);
    await advance(run.clock, 5000);
    await run.stop();
    expect(source.lists.map((options) => options.resourceVersion)).toEqual(['0', '20', '']);
    // A relist at an exact resourceVersion is not paged (served from the watch cache).
    expect(source.lists[1]?.limit).toBeUndefined();
    expect(run.sink.calls).toEqual(['replace a @10', 'MODIFIED a', 'replace a,b @30']);
    expect(source.watches.at(-1)?.resourceVersion).toBe('30');
    expect(run.reflector.health.relists).toBe(1);
  });

  it('with a page size, relists after 410 at least as fresh as the last resourceVersion, not exactly at it', async () => {
    // With a limit, resourceVersion=20 alone means Exact: a restarted kube-apiserver answers
    // with that old snapshot on every relist (the watch from it then gets 410 again).
    const source = new ScriptedSource(
      [list('10', ['a']), list('30', ['a'], 'token'), list('30', ['b'])],
      [[{ type: 'MODIFIED', object: cm('a', '20') }, expired()]],
    );
    const run = start(source, false, undefined, 7);
    await advance(run.clock, 5000);
    await run.stop();
    expect(source.lists[0]).toMatchObject({ resourceVersion: '0', limit: 7 });
    expect(source.lists[0]).not.toHaveProperty('resourceVersionMatch');
    expect(source.lists[1]).toMatchObject({
      resourceVersion: '20',
      resourceVersionMatch: 'NotOlderThan',
      limit: 7,
    });
    // A continue token carries the snapshot: no resourceVersion beside it.
    expect(source.lists[2]).toMatchObject({ continue: 'token', limit: 7 });
    expect(source.lists[2]).not.toHaveProperty('resourceVersion');
    expect(source.lists[2]).not.toHaveProperty('resourceVersionMatch');
    expect(run.sink.calls).toEqual(['replace a @10', 'MODIFIED a', 'replace a,b @30']);
  });

  it('G5: falls back to one full list when a continue token expires', async () => {
    const source = new ScriptedSource(
      [list('10', ['a'], 'token'), expired(), list('10', ['a', 'b'])],
      [],
    );
    const run = start(source);
    await flushMicrotasks();
    await run.stop();
    expect(source.lists[1]).toMatchObject({ continue: 'token', limit: 500 });
    expect(source.lists[2]).toMatchObject({ resourceVersion: '0' });
    expect(source.lists[2]?.limit).toBeUndefined();
    expect(run.sink.calls).toEqual(['replace a,b @10']);
  });

  it('G6: backs off on 429 and connection failures and watches again without relisting', async () => {
    const connectionRefused = new ConnectionError('connect ECONNREFUSED', {
      request: { method: 'GET', path: '/api/v1/configmaps' },
      attempts: 1,
      mayHaveReachedServer: false,
    });
    const source = new ScriptedSource([list('10')], [tooMany(), connectionRefused]);
    const run = start(source);
    await flushMicrotasks();
    expect(source.watches).toHaveLength(1);
    await run.clock.advance(799);
    expect(source.watches).toHaveLength(1);
    await run.clock.advance(1);
    expect(source.watches).toHaveLength(2);
    await run.clock.advance(1599);
    expect(source.watches).toHaveLength(2);
    await run.clock.advance(1);
    expect(source.watches).toHaveLength(3);
    await run.stop();
    expect(source.lists).toHaveLength(1);
    expect(run.errors).toEqual(['ERR_RUNTIME_INFORMER_WATCH', 'ERR_RUNTIME_INFORMER_WATCH']);
    expect(run.reflector.health.consecutiveFailures).toBe(0);
  });

  it('treats a watch that ends at once with nothing as a failure: backoff and relist, no hot loop', async () => {
    const source = new ScriptedSource([list('10'), list('10'), list('10')], [[], [], []]);
    const run = start(source);
    await advance(run.clock, 800 + 1600 - 1);
    await run.stop();
    expect(source.watches).toHaveLength(2);
    expect(source.lists).toHaveLength(2);
    expect(run.errors).toEqual(['ERR_RUNTIME_INFORMER_WATCH', 'ERR_RUNTIME_INFORMER_WATCH']);
    expect(run.reflector.health.lastError?.message).toMatch(/^very short watch: configmaps/);
  });

  it('G7: streams the list over a watch until the initial-events-end bookmark, then watches from it', async () => {
    const modified = { type: 'MODIFIED', object: cm('a', '31') } as const;
    const source = new ScriptedSource(
      [],
      [
        [
          { type: 'ADDED', object: cm('a', '5') },
          { type: 'ADDED', object: cm('b', '7') },
          {
            type: 'BOOKMARK',
            object: {
              metadata: {
                resourceVersion: '30',
                annotations: { 'k8s.io/initial-events-end': 'true' },
              },
            },
          },
          // Closed at the bookmark: what the stream had after it comes again on the next watch.
          modified,
        ],
        [modified],
      ],
    );
    const run = start(source, true);
    await flushMicrotasks();
    await run.stop();
    expect(source.lists).toHaveLength(0);
    expect(source.watches[0]).toMatchObject({
      sendInitialEvents: true,
      resourceVersionMatch: 'NotOlderThan',
      resourceVersion: '',
      allowWatchBookmarks: true,
    });
    // A plain watch (never compressed by the server) from the bookmark's resourceVersion.
    expect(source.watches[1]).toMatchObject({ resourceVersion: '30', allowWatchBookmarks: true });
    expect(source.watches[1]).not.toHaveProperty('sendInitialEvents');
    expect(run.sink.calls).toEqual(['replace a,b @30', 'MODIFIED a']);
    expect(run.reflector.lastResourceVersion).toBe('31');
    expect(run.reflector.health.watchRestarts).toBe(0);
  });

  it('falls back to LIST when the server refuses a streaming list, and stops trying it', async () => {
    const badRequest = new ApiError({
      kind: 'Status',
      status: 'Failure',
      code: 400,
      reason: 'BadRequest',
    });
    const source = new ScriptedSource([list('10', ['a'])], [badRequest]);
    const run = start(source, true);
    await flushMicrotasks();
    await run.stop();
    expect(source.lists).toHaveLength(1);
    expect(source.watches[0]?.sendInitialEvents).toBe(true);
    expect(source.watches[1]?.sendInitialEvents).toBeUndefined();
    expect(run.sink.calls).toEqual(['replace a @10']);
  });

  it("tells the transform which objects' strings their decoder shared: a protobuf watch's", async () => {
    const endBookmark = {
      type: 'BOOKMARK',
      object: {
        metadata: { resourceVersion: '30', annotations: { 'k8s.io/initial-events-end': 'true' } },
      },
    } as const;
    const seen: string[] = [];
    const record = (object: ConfigMap, stringsShared: boolean): ConfigMap => {
      seen.push(`${object.metadata?.name} ${stringsShared}`);
      return object;
    };
    const streamed = new ScriptedSource(
      [],
      [
        [{ type: 'ADDED', object: cm('a', '5') }, endBookmark],
        [{ type: 'MODIFIED', object: cm('a', '31') }],
      ],
      ['protobuf', 'json'],
    );
    const run = start(streamed, true, record);
    await flushMicrotasks();
    await run.stop();
    const listed = new ScriptedSource(
      [list('10', ['b'])],
      [[{ type: 'ADDED', object: cm('c', '11') }]],
      ['protobuf'],
    );
    const second = start(listed, false, record);
    await flushMicrotasks();
    await second.stop();
    // A list does not say how it was decoded: its items count as not shared.
    expect(seen).toEqual(['a true', 'a false', 'b false', 'c true']);
  });
});
