import type { Clientset } from '@k/clientset';
import type { ConfigMap } from '@k/clientset/core/v1';
import { useTestNamespace } from '@k/envtest/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMBINED_PREFIX } from '../src/events/event-correlator.js';
import { EventRecorder } from '../src/events.js';
import { Informer } from '../src/informer.js';
import { clientsetFor, eventually } from './helpers.js';

// Events recorded on the real API server: the Event as created, repeats counted into its series
// (also in the core v1 view that `kubectl describe` reads), and many different notes combined;
// then the same written as core v1 Events (client-go's tools/record), read back by both APIs.
const namespace = useTestNamespace({ prefix: 'runtime-events' });
let cs: Clientset;

beforeAll(async () => {
  cs = await clientsetFor();
});

afterAll(async () => {
  await cs?.close();
});

async function configMap(name: string): Promise<ConfigMap> {
  return cs.coreV1
    .configMaps(namespace.name)
    .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
}

async function eventsAbout(name: string) {
  const list = await cs.eventsV1.events(namespace.name).list();
  return list.items.filter((event) => event.regarding?.name === name);
}

describe('EventRecorder on the real server', () => {
  it('creates an Event about the object and counts repeats into its series', async () => {
    const object = await configMap('repeated');
    const recorder = new EventRecorder(cs, {
      reportingController: 'k.example/events-e2e',
      reportingInstance: 'events-e2e-1',
    });
    recorder.normal(object, 'Synced', 'in sync with its source', { action: 'Sync' });
    await recorder.flush();
    for (let repeat = 2; repeat <= 5; repeat += 1) {
      recorder.normal(object, 'Synced', 'in sync with its source', { action: 'Sync' });
      await recorder.flush();
    }
    recorder.warning(object, 'SyncFailed', 'the source is gone');
    await recorder.close();
    expect(recorder.stats()).toMatchObject({ created: 2, patched: 4, failed: 0, dropped: 0 });

    const events = await eventsAbout('repeated');
    expect(events).toHaveLength(2);
    const synced = events.find((event) => event.reason === 'Synced')!;
    expect(synced).toMatchObject({
      type: 'Normal',
      action: 'Sync',
      note: 'in sync with its source',
      reportingController: 'k.example/events-e2e',
      reportingInstance: 'events-e2e-1',
      regarding: {
        kind: 'ConfigMap',
        namespace: namespace.name,
        name: 'repeated',
        uid: object.metadata!.uid,
      },
      series: { count: 5 },
    });
    expect(events.find((event) => event.reason === 'SyncFailed')).toMatchObject({
      type: 'Warning',
      note: 'the source is gone',
    });
    expect(events.find((event) => event.reason === 'SyncFailed')!.series).toBeUndefined();

    // The core v1 view of the same Event, which kubectl describe shows as `(x5 over …)`.
    const core = (await cs.coreV1.events(namespace.name).list()).items.find(
      (event) => event.metadata?.name === synced.metadata?.name,
    );
    expect(core).toMatchObject({
      series: { count: 5 },
      message: 'in sync with its source',
      reason: 'Synced',
      involvedObject: { kind: 'ConfigMap', name: 'repeated' },
    });
  });

  it('combines more than 10 different notes of one reason into one Event', async () => {
    const object = await configMap('noisy');
    const recorder = new EventRecorder(cs, { reportingController: 'k.example/events-e2e' });
    for (let attempt = 0; attempt < 14; attempt += 1) {
      recorder.warning(object, 'ReconcileFailed', `attempt ${attempt}: conflict`);
      await recorder.flush();
    }
    await recorder.close();
    const events = await eventsAbout('noisy');
    expect(events).toHaveLength(11);
    const combined = events.filter((event) => event.note?.startsWith(COMBINED_PREFIX));
    expect(combined).toHaveLength(1);
    expect(combined[0]).toMatchObject({
      note: `${COMBINED_PREFIX}attempt 10: conflict`,
      series: { count: 4 },
    });
  });

  it('records Events about objects from an informer cache, which have their kind even when listed', async () => {
    await configMap('cached');
    const informer = new Informer(cs.coreV1.configMaps(namespace.name), {
      watchList: false, // a plain LIST, whose items come without apiVersion and kind
      fieldSelector: 'metadata.name=cached',
    });
    informer.start();
    try {
      await informer.waitForSync(AbortSignal.timeout(20_000));
      // A LIST at resourceVersion "0" comes from the watch cache, which may trail the create.
      await eventually(() => expect(informer.lister.get(`${namespace.name}/cached`)).toBeDefined());
      const cached = informer.lister.get(`${namespace.name}/cached`)!;
      expect(cached).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
      const recorder = new EventRecorder(cs, { reportingController: 'k.example/events-e2e' });
      recorder.normal(cached, 'Observed', 'seen in the cache');
      await recorder.close();
      expect(await eventsAbout('cached')).toHaveLength(1);
    } finally {
      await informer.stop();
    }
  });

  it('writes Events about cluster-scoped objects to the default namespace', async () => {
    const object = await cs.coreV1.namespaces().get(namespace.name);
    const recorder = new EventRecorder(cs, { reportingController: 'k.example/events-e2e' });
    recorder.normal(object, 'Observed', 'seen by the events e2e test');
    await recorder.close();
    expect(recorder.stats()).toMatchObject({ created: 1, failed: 0 });
    const events = (await cs.eventsV1.events('default').list()).items.filter(
      (event) => event.regarding?.kind === 'Namespace' && event.regarding.name === namespace.name,
    );
    expect(events).toHaveLength(1);
    await cs.eventsV1.events('default').delete(events[0]!.metadata!.name!);
  });
});

describe('EventRecorder writing core v1 Events on the real server', () => {
  async function coreEventsAbout(name: string) {
    const list = await cs.coreV1.events(namespace.name).list();
    return list.items.filter((event) => event.involvedObject.name === name);
  }

  it('creates a core v1 Event, counts repeats into count and lastTimestamp, and both APIs read it', async () => {
    const object = await configMap('legacy');
    const recorder = new EventRecorder(cs, {
      apiVersion: 'v1',
      reportingController: 'k.example/events-e2e',
      reportingInstance: 'events-e2e-1',
    });
    for (let repeat = 1; repeat <= 5; repeat += 1) {
      recorder.normal(object, 'Synced', 'in sync with its source');
      await recorder.flush();
    }
    recorder.warning(object, 'SyncFailed', 'the source is gone');
    await recorder.close();
    expect(recorder.stats()).toMatchObject({ created: 2, patched: 4, failed: 0, dropped: 0 });

    const core = await coreEventsAbout('legacy');
    expect(core).toHaveLength(2);
    const synced = core.find((event) => event.reason === 'Synced')!;
    expect(synced).toMatchObject({
      type: 'Normal',
      message: 'in sync with its source',
      count: 5,
      source: { component: 'k.example/events-e2e' },
      reportingComponent: 'k.example/events-e2e',
      reportingInstance: 'events-e2e-1',
      involvedObject: {
        kind: 'ConfigMap',
        namespace: namespace.name,
        name: 'legacy',
        uid: object.metadata!.uid,
      },
    });
    expect(synced.series).toBeUndefined();
    expect(Date.parse(synced.lastTimestamp!)).toBeGreaterThanOrEqual(
      Date.parse(synced.firstTimestamp!),
    );
    expect(core.find((event) => event.reason === 'SyncFailed')).toMatchObject({
      type: 'Warning',
      count: 1,
    });

    // The events.k8s.io/v1 view of the same Event keeps the legacy fields as deprecated*.
    const view = await cs.eventsV1.events(namespace.name).get(synced.metadata.name!);
    expect(view).toMatchObject({
      regarding: { kind: 'ConfigMap', name: 'legacy' },
      note: 'in sync with its source',
      reason: 'Synced',
      reportingController: 'k.example/events-e2e',
      deprecatedCount: 5,
      deprecatedSource: { component: 'k.example/events-e2e' },
      deprecatedFirstTimestamp: synced.firstTimestamp,
      deprecatedLastTimestamp: synced.lastTimestamp,
    });
  });

  it('applies the same aggregation and spam filter', async () => {
    const object = await configMap('legacy-noisy');
    const recorder = new EventRecorder(cs, {
      apiVersion: 'v1',
      reportingController: 'k.example/events-e2e',
    });
    for (let attempt = 0; attempt < 14; attempt += 1) {
      recorder.warning(object, 'ReconcileFailed', `attempt ${attempt}: conflict`);
      await recorder.flush();
    }
    // 11 Events so far took 14 of the object's 25 tokens: 11 more reasons pass, the rest wait.
    for (let reason = 0; reason < 15; reason += 1) recorder.normal(object, `Step${reason}`, 'done');
    await recorder.close();
    expect(recorder.stats()).toMatchObject({ spamFiltered: 4, failed: 0 });
    const events = await coreEventsAbout('legacy-noisy');
    const failed = events.filter((event) => event.reason === 'ReconcileFailed');
    expect(failed).toHaveLength(11);
    expect(failed.filter((event) => event.message?.startsWith(COMBINED_PREFIX))).toEqual([
      expect.objectContaining({ message: `${COMBINED_PREFIX}attempt 10: conflict`, count: 4 }),
    ]);
    expect(events.filter((event) => event.reason?.startsWith('Step'))).toHaveLength(11);
  });
});
