import type { GetOptions, JsonPatchOperation, KubernetesObject } from '@k/clientset';
import { FakeClock } from '@k/rest/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemorySource, statusError } from '../__fixtures__/memory-source.js';
import { RuntimeError, TerminalError } from '../errors.js';
import { withFinalizer } from '../finalizers/with-finalizer.js';
import { InformerFactory } from '../informer/informer-factory.js';
import { SILENT_LOGGER } from '../logger.js';
import { PrometheusMetrics } from '../prometheus.js';
import { ItemExponentialFailureRateLimiter } from '../workqueue/rate-limiters.js';
import type { Controller, ControllerOptions, ReconcileContext } from './controller.js';
import { ControllerBuilder } from './controller-builder.js';
import { generationChanged } from './predicates.js';

// The controller over in-memory sources (a MemorySource is what a reflector sees of a server);
// the real server's side is in e2e/controller.e2e.test.ts and e2e/finalizers.e2e.test.ts.

type Thing = KubernetesObject & {
  metadata: { name: string; namespace?: string };
  data?: Record<string, string>;
};

const running: { stop: AbortController; done: Promise<void> }[] = [];

afterEach(async () => {
  for (const { stop, done } of running.splice(0)) {
    stop.abort();
    await done;
  }
});

const QUIET: ControllerOptions = {
  logger: SILENT_LOGGER,
  // Retries at once: the tests wait for what a retry does, never for its delay.
  rateLimiter: new ItemExponentialFailureRateLimiter<string>(0, 0),
};

function thing(name: string, namespace?: string, data: Record<string, string> = {}): Thing {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ...(namespace ? { namespace } : {}) },
    data,
  };
}

function start<T extends KubernetesObject, C>(controller: Controller<T, C>): Promise<void> {
  const stop = new AbortController();
  const done = controller.start(stop.signal);
  running.push({ stop, done });
  return done;
}

/** PatchableClient is what a @k/clientset client offers a finalizer: `get` by name and a JSON `patch`. */
interface PatchableClient {
  readonly namespace: string | undefined;
  list: MemorySource<Thing>['list'];
  watch: MemorySource<Thing>['watch'];
  inNamespace(namespace: string): PatchableClient;
  get(name: string, options?: GetOptions): Promise<Thing>;
  patch(name: string, type: 'json', body: readonly JsonPatchOperation[]): Promise<Thing>;
}

/**
 * patchable is a client over a MemorySource with the `get` and JSON `patch` a finalizer sends (as
 * a @k/clientset client sends them to the server): `test`, `add` and `replace`, as RFC 6902 has
 * them. `patches` counts the patches of every view.
 */
function patchable(
  source: MemorySource<Thing>,
  counter = { patches: 0 },
): PatchableClient & { counter: { patches: number } } {
  const keyOf = (name: string): string => (source.namespace ? `${source.namespace}/${name}` : name);
  return {
    counter,
    namespace: source.namespace,
    list: (options) => source.list(options),
    watch: (options) => source.watch(options),
    inNamespace: (namespace) => patchable(source.inNamespace(namespace), counter),
    get: (name) => {
      const object = source.get(keyOf(name));
      return object ? Promise.resolve(object) : Promise.reject(statusError(404, 'NotFound'));
    },
    // eslint-disable-next-line @typescript-eslint/require-await -- throws become rejections, as a client's do
    patch: async (name, _type, body) => {
      counter.patches += 1;
      const object = source.get(keyOf(name));
      if (!object) throw statusError(404, 'NotFound');
      for (const operation of body) {
        const path = operation.path.split('/').slice(1);
        let parent = object as unknown as Record<string, unknown>;
        for (const segment of path.slice(0, -1))
          parent = parent[segment] as Record<string, unknown>;
        const last = path.at(-1)!;
        if (operation.op === 'test') {
          if (JSON.stringify(parent[last]) !== JSON.stringify(operation.value)) {
            throw statusError(422, 'Invalid', 'the test failed');
          }
        } else if (operation.op === 'add' && last === '-') {
          (parent as unknown as unknown[]).push(operation.value);
        } else if (operation.op === 'add' || operation.op === 'replace') {
          parent[last] = operation.value;
        }
      }
      return source.update(object);
    },
  };
}

describe('Controller', () => {
  it("hands the reconciler its object from the cache, with the request and the client in the object's namespace", async () => {
    const source = new MemorySource<Thing>();
    source.create(thing('a', 'ns1', { value: '1' }));
    source.create(thing('cluster-wide'));
    const seen: { object: Thing; context: ReconcileContext<Thing, MemorySource<Thing>> }[] = [];
    const controller = new ControllerBuilder('things')
      .for(source)
      .withOptions(QUIET)
      .complete((object, context) => {
        seen.push({ object, context });
      });
    void start(controller);
    await vi.waitFor(() => expect(seen).toHaveLength(2));
    const byName = new Map(seen.map((each) => [each.object.metadata.name, each.context]));
    expect(byName.get('a')?.request).toEqual({ namespace: 'ns1', name: 'a' });
    expect(byName.get('a')?.client.namespace).toBe('ns1');
    expect(byName.get('cluster-wide')?.request).toEqual({ namespace: '', name: 'cluster-wide' });
    expect(byName.get('cluster-wide')?.client).toBe(source);
    expect(seen.find((each) => each.object.metadata.name === 'a')?.object.data).toEqual({
      value: '1',
    });
  });

  it('does not reconcile an object that is gone, and reconciles a changed one with its new state', async () => {
    const source = new MemorySource<Thing>();
    source.create(thing('a', 'ns'));
    const seen: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const controller = new ControllerBuilder('things')
      .for(source)
      .withOptions(QUIET)
      .complete(async (object) => {
        seen.push(`${object.metadata.name}:${object.data?.value ?? ''}`);
        await gate;
      });
    void start(controller);
    await vi.waitFor(() => expect(seen).toEqual(['a:']));
    // Changed, then deleted, while the first reconcile runs: the key is queued once, and when it
    // runs the object is gone, so the reconciler is not called.
    source.update({ ...source.get('ns/a')!, data: { value: 'changed' } });
    source.create(thing('b', 'ns', { value: 'b' }));
    source.delete('ns/a');
    await vi.waitFor(() => expect(controller.informer.lister.getByName('a', 'ns')).toBeUndefined());
    release();
    await vi.waitFor(() => expect(seen).toEqual(['a:', 'b:b']));
  });

  it('requeues after requeueAfterMs, on its clock', async () => {
    const clock = new FakeClock();
    const source = new MemorySource<Thing>();
    source.create(thing('a', 'ns'));
    let reconciles = 0;
    const controller = new ControllerBuilder('periodic')
      .for(source)
      .withOptions({ ...QUIET, clock })
      .complete(() => {
        reconciles += 1;
        return { requeueAfterMs: 60_000 };
      });
    void start(controller);
    await vi.waitFor(() => expect(reconciles).toBe(1));
    await clock.advance(59_000);
    expect(reconciles).toBe(1);
    await clock.advance(1_000);
    await vi.waitFor(() => expect(reconciles).toBe(2));
  });

  it('retries a thrown error with backoff and goes on with other keys', async () => {
    const source = new MemorySource<Thing>();
    source.create(thing('flaky', 'ns'));
    source.create(thing('fine', 'ns'));
    const attempts = new Map<string, number>();
    const controller = new ControllerBuilder('retrying')
      .for(source)
      .withOptions(QUIET)
      .complete(({ metadata: { name } }) => {
        const attempt = (attempts.get(name) ?? 0) + 1;
        attempts.set(name, attempt);
        if (name === 'flaky' && attempt < 3) throw new Error(`attempt ${attempt} fails`);
      });
    void start(controller);
    await vi.waitFor(() =>
      expect(attempts).toEqual(
        new Map([
          ['flaky', 3],
          ['fine', 1],
        ]),
      ),
    );
    expect(controller.queue.numRequeues('ns/flaky')).toBe(0);
  });

  it('does not retry a TerminalError: counts it, tells it on the object, and reconciles again after a change', async () => {
    const source = new MemorySource<Thing>();
    source.create(thing('invalid', 'ns', { spec: 'bad' }));
    const metrics = new PrometheusMetrics({ processMetrics: false });
    const warnings: string[] = [];
    const seen: string[] = [];
    const controller = new ControllerBuilder('strict')
      .for(source)
      .withOptions({
        ...QUIET,
        metrics,
        recorder: {
          warning: (object, reason, note) =>
            warnings.push(`${object.metadata?.name} ${reason}: ${note}`),
        },
      })
      .complete((object) => {
        seen.push(object.data?.spec ?? '');
        if (object.data?.spec === 'bad') throw new TerminalError('spec is invalid');
      });
    void start(controller);
    await vi.waitFor(() => expect(warnings).toEqual(['invalid ReconcileFailed: spec is invalid']));
    // Nothing is queued or waiting: the key is not retried.
    expect(controller.queue.length).toBe(0);
    expect(controller.queue.numRequeues('ns/invalid')).toBe(0);
    const scraped = (await metrics.scrape()).body;
    expect(scraped).toContain(
      'controller_runtime_terminal_reconcile_errors_total{controller="strict"} 1',
    );
    expect(scraped).toContain('controller_runtime_reconcile_errors_total{controller="strict"} 1');
    expect(scraped).toContain(
      'controller_runtime_reconcile_total{controller="strict",result="error"} 1',
    );
    source.update({ ...source.get('ns/invalid')!, data: { spec: 'good' } });
    await vi.waitFor(() => expect(seen).toEqual(['bad', 'good']));
  });

  it('gives the next reconcile what the last one remembered writing, until the cache has it', async () => {
    const source = new MemorySource<Thing>();
    source.create(thing('a', 'ns', { step: '0' }));
    const seen: string[] = [];
    const controller = new ControllerBuilder('writer')
      .for(source)
      .withOptions(QUIET)
      .complete((object, { remember }) => {
        seen.push(object.data?.step ?? '');
        if (object.data?.step === '0') {
          // The watch delivers nothing more: only the remembered write can show step 1.
          source.stallWatches();
          remember(source.update({ ...source.get('ns/a')!, data: { step: '1' } }));
          return { requeueAfterMs: 1 };
        }
      });
    void start(controller);
    await vi.waitFor(() => expect(seen).toEqual(['0', '1']));
  });
});

describe('Controller own writes', () => {
  it("does not reconcile again the change its own remembered write made, but does someone else's after it", async () => {
    const source = new MemorySource<Thing>();
    source.create(thing('a', 'ns', { step: '0' }));
    const seen: string[] = [];
    const controller = new ControllerBuilder('status-writer')
      .for(source)
      .withOptions(QUIET)
      .complete((object, { remember }) => {
        seen.push(object.data?.step ?? '');
        // A status write of the reconciler's: remembered, so its watch event is not a reconcile.
        if (object.data?.status !== 'done') {
          remember(
            source.update({ ...source.get('ns/a')!, data: { ...object.data, status: 'done' } }),
          );
        }
      });
    void start(controller);
    await vi.waitFor(() => expect(seen).toEqual(['0']));
    await vi.waitFor(() =>
      expect(controller.informer.lister.getByName('a', 'ns')?.data?.status).toBe('done'),
    );
    source.update({ ...source.get('ns/a')!, data: { step: '1', status: 'done' } });
    await vi.waitFor(() => expect(seen).toEqual(['0', '1']));
  });
});

describe('Controller changes during a reconcile', () => {
  it('reconciles again after hundreds of changes delivered during one reconcile (more than the bounded record keeps)', async () => {
    const source = new MemorySource<Thing>();
    source.create(thing('busy', 'ns', { step: '0' }));
    const seen: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const controller = new ControllerBuilder('busy')
      .for(source)
      .withOptions(QUIET)
      .complete(async (object) => {
        seen.push(object.data?.step ?? '');
        if (object.data?.step === '0') await gate;
      });
    void start(controller);
    await vi.waitFor(() => expect(seen).toEqual(['0']));
    // Far more changes than the record keeps arrive while the first reconcile runs.
    for (let step = 1; step <= 500; step += 1) {
      source.update({ ...source.get('ns/busy')!, data: { step: String(step) } });
    }
    await vi.waitFor(() =>
      expect(controller.informer.lister.getByName('busy', 'ns')?.data?.step).toBe('500'),
    );
    release();
    await vi.waitFor(() => expect(seen).toEqual(['0', '500']));
  });
});

describe('ControllerBuilder', () => {
  it('refuses for() twice and complete() without for()', () => {
    const source = new MemorySource<Thing>();
    const builder = new ControllerBuilder('twice').for(source);
    expect(() => builder.for(source)).toThrow(RuntimeError);
    expect(() => new ControllerBuilder('none').complete(() => {})).toThrow(
      /for\(\) was not called/,
    );
  });

  it('owns(): a change of an owned object enqueues its controlling owner, namespaced or cluster-scoped', async () => {
    const descriptor = (kind: string, namespaced: boolean) => ({
      group: 'example.com',
      version: 'v1',
      kind,
      plural: `${kind.toLowerCase()}s`,
      namespaced,
    });
    for (const namespaced of [true, false]) {
      const owners = new MemorySource<Thing>({ descriptor: descriptor('Team', namespaced) });
      const children = new MemorySource<Thing>();
      const owner = owners.create(thing('alpha', namespaced ? 'ns' : undefined));
      const seen: string[] = [];
      const controller = new ControllerBuilder(`teams-${namespaced}`)
        .for(owners)
        .owns(children)
        .withOptions(QUIET)
        .complete((_object, { request }) => {
          seen.push(`${request.namespace}/${request.name}`);
        });
      void start(controller);
      const key = namespaced ? 'ns/alpha' : '/alpha';
      await vi.waitFor(() => expect(seen).toEqual([key]));
      children.create({
        ...thing('child', 'ns'),
        metadata: {
          name: 'child',
          namespace: 'ns',
          ownerReferences: [
            {
              apiVersion: 'example.com/v1',
              kind: 'Team',
              name: 'alpha',
              uid: owner.metadata.uid ?? '',
              controller: true,
            },
            // Not the controller, and of another kind: neither enqueues anything.
            {
              apiVersion: 'example.com/v1',
              kind: 'Other',
              name: 'beta',
              uid: 'x',
              controller: true,
            },
          ],
        },
      });
      await vi.waitFor(() => expect(seen).toEqual([key, key]));
    }
  });

  it('watches() maps changes with your function; predicates filter every source', async () => {
    const things = new MemorySource<Thing>();
    const signals = new MemorySource<Thing>();
    things.create(thing('target', 'ns'));
    const seen: string[] = [];
    const controller = new ControllerBuilder('mapped')
      .for(things)
      .watches(signals, (signal) => [{ namespace: 'ns', name: signal.data?.target ?? '' }])
      .withPredicates(generationChanged)
      .withOptions(QUIET)
      .complete((object) => {
        seen.push(`${object.metadata.name}@${object.metadata.generation}`);
      });
    void start(controller);
    await vi.waitFor(() => expect(seen).toEqual(['target@1']));
    // A label change keeps the generation: filtered out. A data change raises it.
    const current = things.get('ns/target')!;
    things.update({ ...current, metadata: { ...current.metadata, labels: { seen: 'no' } } });
    things.update({ ...things.get('ns/target')!, data: { changed: 'yes' } });
    await vi.waitFor(() => expect(seen).toEqual(['target@1', 'target@2']));
    signals.create(thing('signal', 'ns', { target: 'target' }));
    await vi.waitFor(() => expect(seen).toEqual(['target@1', 'target@2', 'target@2']));
  });

  it('shares the informers of one factory between controllers of the same source and selection', () => {
    const informers = new InformerFactory({ logger: SILENT_LOGGER });
    const source = new MemorySource<Thing>();
    const first = new ControllerBuilder('one', { informers }).for(source).complete(() => {});
    const second = new ControllerBuilder('two', { informers }).for(source).complete(() => {});
    const other = new ControllerBuilder('three', { informers })
      .for(source, { labelSelector: { role: 'x' } })
      .complete(() => {});
    expect(second.informer).toBe(first.informer);
    expect(other.informer).not.toBe(first.informer);
  });
});

describe('withFinalizer', () => {
  const FINALIZER = 'example.com/cleanup';

  it('adds the finalizer before apply first runs, keeps other finalizers, and adds it once', async () => {
    const source = new MemorySource<Thing>();
    const client = patchable(source);
    source.create({
      ...thing('a', 'ns'),
      metadata: { name: 'a', namespace: 'ns', finalizers: ['other/keep'] },
    });
    const applied: string[][] = [];
    const controller = new ControllerBuilder('finalized')
      .for(client)
      .withOptions(QUIET)
      .complete(
        withFinalizer(FINALIZER, {
          apply: (object) => {
            applied.push([...(object.metadata.finalizers ?? [])]);
          },
          cleanup: () => {},
        }),
      );
    void start(controller);
    await vi.waitFor(() => expect(applied).toHaveLength(1));
    // The finalizer's own patch is not reconciled again; a change of someone else's is, without a patch.
    source.update({ ...source.get('ns/a')!, data: { changed: 'yes' } });
    await vi.waitFor(() => expect(applied).toHaveLength(2));
    expect(new Set(applied.map((finalizers) => finalizers.join()))).toEqual(
      new Set([`other/keep,${FINALIZER}`]),
    );
    expect(client.counter.patches).toBe(1);
    expect(source.get('ns/a')?.metadata.finalizers).toEqual(['other/keep', FINALIZER]);
  });

  it('on deletion runs cleanup, then removes the finalizer; a failed cleanup keeps it and is retried', async () => {
    const source = new MemorySource<Thing>();
    source.create(thing('a', 'ns'));
    const calls: string[] = [];
    let cleanups = 0;
    const controller = new ControllerBuilder('finalized')
      .for(patchable(source))
      .withOptions(QUIET)
      .complete(
        withFinalizer(FINALIZER, {
          apply: () => void calls.push('apply'),
          cleanup: (object) => {
            cleanups += 1;
            calls.push(`cleanup ${cleanups}`);
            expect(object.metadata.finalizers).toContain(FINALIZER);
            if (cleanups === 1) throw new Error('the external thing is still there');
            if (cleanups === 2) return { requeueAfterMs: 1 };
          },
        }),
      );
    void start(controller);
    await vi.waitFor(() => expect(calls).toEqual(['apply']));
    source.delete('ns/a');
    await vi.waitFor(() => expect(source.get('ns/a')).toBeUndefined());
    expect(calls).toEqual(['apply', 'cleanup 1', 'cleanup 2', 'cleanup 3']);
  });

  it('leaves a deleting object without its finalizer alone (other finalizers hold it)', async () => {
    const source = new MemorySource<Thing>();
    const client = patchable(source);
    source.create({
      ...thing('held', 'ns'),
      metadata: { name: 'held', namespace: 'ns', finalizers: ['other/keep'] },
    });
    source.delete('ns/held');
    const calls: string[] = [];
    let reconciled = 0;
    const controller = new ControllerBuilder('finalized')
      .for(client)
      .withOptions(QUIET)
      .complete(async (object, context) => {
        reconciled += 1;
        await withFinalizer<Thing, typeof client>(FINALIZER, {
          apply: () => void calls.push('apply'),
          cleanup: () => void calls.push('cleanup'),
        })(object, context);
      });
    void start(controller);
    await vi.waitFor(() => expect(reconciled).toBe(1));
    expect(calls).toEqual([]);
    expect(client.counter.patches).toBe(0);
    expect(source.get('ns/held')?.metadata.finalizers).toEqual(['other/keep']);
  });
});

describe('Controller shutdown', () => {
  it('lets a running reconcile finish on stop, then resolves', async () => {
    const source = new MemorySource<Thing>();
    source.create(thing('slow', 'ns'));
    const log: string[] = [];
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => (started = resolve));
    const controller = new ControllerBuilder('draining')
      .for(source)
      .withOptions(QUIET)
      .complete(async (_object, { signal }) => {
        started();
        await new Promise((resolve) => setTimeout(resolve, 50));
        log.push(signal.aborted ? 'aborted' : 'finished');
      });
    const stop = new AbortController();
    const done = controller.start(stop.signal);
    await running;
    stop.abort();
    await done;
    expect(log).toEqual(['finished']);
    expect(controller.queue.shuttingDown).toBe(true);
  });

  it('stops at once when leadership is lost: running reconciles see their signal abort', async () => {
    const source = new MemorySource<Thing>();
    source.create(thing('slow', 'ns'));
    let aborted: unknown;
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => (started = resolve));
    const controller = new ControllerBuilder('leading')
      .for(source)
      .withOptions(QUIET)
      .complete(
        (_object, { signal }) =>
          new Promise<void>((resolve) => {
            started();
            signal.addEventListener('abort', () => {
              aborted = signal.reason;
              resolve();
            });
          }),
      );
    const stop = new AbortController();
    const done = controller.start(stop.signal);
    await running;
    stop.abort(new RuntimeError('ERR_RUNTIME_LEADERSHIP_LOST', 'lost'));
    await done;
    expect(RuntimeError.isInstance(aborted) && aborted.code).toBe('ERR_RUNTIME_LEADERSHIP_LOST');
  });
});
