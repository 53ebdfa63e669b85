import { inferClientset, type Clientset } from '@k/clientset';
import type { ConfigMap, Event as CoreEvent } from '@k/clientset/core/v1';
import type { EnvironmentFaultProxy } from '@k/envtest';
import { useEnvironment } from '@k/envtest/vitest';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DeletedFinalStateUnknown,
  Informer,
  objectKey,
  type EventHandler,
  type InformerOptions,
} from '../src/informer.js';
import { Manager, SILENT_LOGGER } from '../src/index.js';
import { CountingSource, GatedSource, eventually, inParallel } from './helpers.js';

// Faults on a real control plane of its own (they would disturb every other test's client):
// kube-apiserver restarted in place, a TCP proxy in front of it that cuts, stalls and refuses
// connections, and an etcd compaction. The informer must recover by itself every time, with a
// cache equal to the server's and every object's final state delivered to its handlers.
// etcd and kube-apiserver alone, from the cache (never a shell's KUBEBUILDER_ASSETS).
const plane = useEnvironment({
  own: true,
  binaries: 'cache',
  nodes: 0,
  controllerManager: false,
  scheduler: false,
});
let proxy: EnvironmentFaultProxy;
let direct: Clientset;
let proxied: Clientset;
let namespaceIndex = 0;
let namespace: string;

beforeAll(async () => {
  proxy = await plane.faultProxy();
  direct = await inferClientset({
    kubeconfig: plane.kubeconfigPath,
    context: 'admin',
    throttle: 'off',
  });
  proxied = await inferClientset({
    kubeconfig: proxy.kubeconfigPath,
    context: 'admin',
    throttle: 'off',
  });
});

// The proxy and the plane are closed and stopped by useEnvironment after the file.
afterAll(async () => {
  await proxied?.close();
  await direct?.close();
});

beforeEach(async () => {
  namespace = `faults-${++namespaceIndex}`;
  await direct.coreV1
    .namespaces()
    .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
});

afterEach(async () => {
  await proxy.heal();
});

const LABELS = { test: 'faults' };

function configMap(name: string, data: Record<string, string> = {}): ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: LABELS }, data };
}

/** FinalStates records the last state each handler call delivered, by key. */
class FinalStates implements EventHandler<ConfigMap> {
  readonly objects = new Map<string, string>();

  onAdd(object: ConfigMap): void {
    this.objects.set(objectKey(object), object.metadata!.resourceVersion!);
  }

  onUpdate(_old: ConfigMap, object: ConfigMap): void {
    this.objects.set(objectKey(object), object.metadata!.resourceVersion!);
  }

  onDelete(object: ConfigMap | DeletedFinalStateUnknown<ConfigMap>): void {
    this.objects.delete(
      object instanceof DeletedFinalStateUnknown ? object.key : objectKey(object),
    );
  }
}

/** serverState is a fresh LIST as key → resourceVersion. */
async function serverState(): Promise<Map<string, string>> {
  const list = await direct.coreV1.configMaps(namespace).list({ labelSelector: LABELS });
  return new Map(list.items.map((item) => [objectKey(item), item.metadata!.resourceVersion!]));
}

function cacheState(informer: Informer<ConfigMap>): Map<string, string> {
  return new Map(
    informer.lister.list().map((item) => [objectKey(item), item.metadata!.resourceVersion!]),
  );
}

/** changes writes a burst through the direct client: 10 updates, 5 deletes, 5 creates. */
async function changes(round: string): Promise<void> {
  const configMaps = direct.coreV1.configMaps(namespace);
  await inParallel(
    Array.from({ length: 10 }, (_, index) => index),
    5,
    (index) => configMaps.patch(`cm-${index}`, 'merge', { data: { round } }),
  );
  await inParallel(
    Array.from({ length: 5 }, (_, index) => index + 10),
    5,
    (index) => configMaps.delete(`cm-${index}`),
  );
  await inParallel(
    Array.from({ length: 5 }, (_, index) => index),
    5,
    (index) => configMaps.create(configMap(`${round}-${index}`)),
  );
}

type FaultOptions = Pick<
  InformerOptions<ConfigMap>,
  'watchIdleTimeoutMs' | 'watchList' | 'pageSize'
>;

async function startInformer(client: Clientset, options: FaultOptions = {}) {
  await inParallel(
    Array.from({ length: 20 }, (_, index) => index),
    5,
    (index) => direct.coreV1.configMaps(namespace).create(configMap(`cm-${index}`)),
  );
  const source = new CountingSource(client.coreV1.configMaps(namespace));
  const informer = new Informer<ConfigMap>(source, { labelSelector: LABELS, ...options });
  const handlers = new FinalStates();
  informer.addEventHandler(handlers);
  informer.start();
  await informer.waitForSync(AbortSignal.timeout(30_000));
  expect(informer.lister.size).toBe(20);
  // Long enough that the next end of the watch is not a "very short watch".
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  return { source, informer, handlers };
}

async function converged(
  informer: Informer<ConfigMap>,
  handlers: FinalStates,
  timeoutMs = 60_000,
): Promise<void> {
  await eventually(async () => {
    const server = await serverState();
    expect(cacheState(informer)).toEqual(server);
    expect(handlers.objects).toEqual(server);
    expect(informer.health().ready).toBe(true);
  }, timeoutMs);
}

describe('an informer under faults', () => {
  // Every way an informer lists: a relist after the restart must be at least as fresh as what
  // it had (a paged LIST at a bare resourceVersion is an exact, old snapshot).
  it.each<{ name: string; options: FaultOptions }>([
    { name: 'streaming list', options: {} },
    { name: 'streaming list with a page size', options: { pageSize: 7 } },
    { name: 'LIST', options: { watchList: false } },
    { name: 'paged LIST', options: { watchList: false, pageSize: 7 } },
  ])(
    'kube-apiserver restarted mid-watch ($name): recovers by itself and sees what was written meanwhile',
    async ({ options }) => {
      const { source, informer, handlers } = await startInformer(direct, options);
      let stopped = false;
      try {
        await plane.stopComponent('kube-apiserver');
        stopped = true;
        await eventually(() => expect(informer.health().ready).toBe(false), 30_000);
        // A watch ended by the server's shutdown is opened again (and refused), or ends at once
        // and is followed by a relist (refused as well).
        expect(['ERR_RUNTIME_INFORMER_WATCH', 'ERR_RUNTIME_INFORMER_LIST']).toContain(
          informer.health().lastError?.code,
        );
        const watchesBefore = source.watches.length;
        const listsBefore = source.lists.length;
        const lastResourceVersion = informer.health().resourceVersion;
        await plane.startComponent('kube-apiserver');
        stopped = false;
        await changes('restart'); // while the informer is still backing off
        await converged(informer, handlers, 20_000);
        // It first tried to resume (or relist) at its last resourceVersion. A restarted
        // kube-apiserver's watch cache starts a new window at etcd's current revision (which its
        // own Lease renewals move on), so a watch from there answers 410 Gone and the informer
        // relists once: the resume is tried, the relist is the server's call.
        const watches = source.watches.slice(watchesBefore);
        const lists = source.lists.slice(listsBefore);
        expect(
          [...watches, ...lists].some((sent) => sent?.resourceVersion === lastResourceVersion),
        ).toBe(true);
        expect(informer.health().relists).toBeLessThanOrEqual(1);
        if (options.watchList === false) {
          // Every relist at the last resourceVersion is at least as fresh as it (a paged one
          // at a bare resourceVersion would be that exact, old snapshot).
          for (const list of lists) {
            if (list?.continue || list?.resourceVersion !== lastResourceVersion) continue;
            if (options.pageSize) {
              expect(list).toMatchObject({ limit: 7, resourceVersionMatch: 'NotOlderThan' });
            } else {
              expect(list).not.toHaveProperty('limit');
            }
          }
        } else {
          expect(watches.some((watch) => watch?.sendInitialEvents)).toBe(true); // it streamed
        }
        // No hot loop while the server was down: backoff from 800 ms, doubling.
        expect(watches.length + lists.length).toBeLessThan(15);
      } finally {
        if (stopped) await plane.startComponent('kube-apiserver');
        await informer.stop();
      }
    },
  );

  it('a cut connection: resumes from the last resourceVersion without a relist', async () => {
    const { source, informer, handlers } = await startInformer(proxied);
    try {
      const watchesBefore = source.watches.length;
      proxy.cut();
      await changes('cut');
      await converged(informer, handlers);
      expect(source.watches.length).toBeGreaterThan(watchesBefore);
      expect(informer.health()).toMatchObject({ relists: 0 });
      expect(informer.health().watchRestarts).toBeGreaterThanOrEqual(1);
    } finally {
      await informer.stop();
    }
  });

  it('a stalled connection: detected after the idle timeout and replaced, without a relist', async () => {
    const { source, informer, handlers } = await startInformer(proxied, {
      watchIdleTimeoutMs: 3_000,
    });
    try {
      const restartsBefore = informer.health().watchRestarts;
      await proxy.stall();
      await changes('stall'); // through the direct client: the stalled watch sees nothing
      await eventually(() => {
        expect(informer.health().ready).toBe(false);
        expect(informer.health().lastError?.message).toMatch(/received nothing for 3000ms/);
      }, 20_000);
      await proxy.heal();
      await converged(informer, handlers);
      expect(informer.health().watchRestarts).toBeGreaterThan(restartsBefore);
      expect(informer.health().relists).toBe(0);
      expect(source.lists).toHaveLength(0);
    } finally {
      await informer.stop();
    }
  });

  it("a Manager's /readyz fails while its informer cannot reach the server, and passes again after", async () => {
    await direct.coreV1.configMaps(namespace).create(configMap('cm-0'));
    const stop = new AbortController();
    const logged: string[] = [];
    const manager = new Manager({
      probes: { port: 0, host: '127.0.0.1' },
      metricsServer: false,
      logger: {
        ...SILENT_LOGGER,
        info: (message, fields) => logged.push(`${message} ${JSON.stringify(fields)}`),
      },
    });
    const informer = manager.informerFor(proxied.coreV1.configMaps(namespace), {
      labelSelector: LABELS,
    });
    const done = manager.start(stop.signal);
    const readyz = async () => {
      const response = await fetch(`${manager.addresses.probes!.url}/readyz`, {
        signal: AbortSignal.timeout(5_000),
      });
      return { status: response.status, body: await response.text() };
    };
    try {
      await eventually(async () => expect((await readyz()).status).toBe(200));
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      // refuse() resolves once open connections ended: stop accepting, then cut the open ones.
      const refused = proxy.refuse();
      proxy.cut();
      await refused;
      const failing = await eventually(async () => {
        const answer = await readyz();
        expect(answer.status).toBe(500);
        return answer;
      });
      expect(failing.body).toContain('[-]informers failed: reason withheld');
      expect(logged.join('\n')).toMatch(
        /"check":"informers".*configmaps in namespace \S+ failing \(.*(ECONNREFUSED|refused)/,
      );
      await direct.coreV1.configMaps(namespace).create(configMap('while-refused'));
      await proxy.heal();
      await eventually(
        async () => expect(await readyz()).toEqual({ status: 200, body: 'ok' }),
        40_000,
      );
      await eventually(() =>
        expect(informer.lister.get(`${namespace}/while-refused`)).toBeDefined(),
      );
      expect(informer.health().relists).toBe(0);
    } finally {
      stop.abort();
      await done;
    }
  });

  it('after an etcd compaction, gets 410 Gone, relists, and delivers a tombstone for the delete it missed', async () => {
    // Core Events are not in the API server's watch cache: their watches are served by etcd,
    // so after a compaction a watch at an older resourceVersion gets 410 Gone.
    const events = direct.coreV1.events(namespace);
    const event = (name: string): CoreEvent => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name },
      involvedObject: { kind: 'ConfigMap', name: 'x', namespace },
      reason: 'Testing',
      message: 'an informer test',
      type: 'Normal',
    });
    await events.create(event('first'));
    await events.create(event('second'));
    const source = new GatedSource(events);
    const informer = new Informer<CoreEvent>(source, { watchList: false });
    const deleted: (CoreEvent | DeletedFinalStateUnknown<CoreEvent>)[] = [];
    const added: string[] = [];
    informer.addEventHandler({
      onAdd: (object) => added.push(object.metadata.name!),
      onDelete: (object) => deleted.push(object),
    });
    informer.start();
    try {
      await informer.waitForSync(AbortSignal.timeout(30_000));
      expect(informer.lister.size).toBe(2);
      const watchedFrom = informer.health().resourceVersion;
      await new Promise((resolve) => setTimeout(resolve, 1100)); // not a "very short watch"
      source.pause();
      // Missed while the watch is down: a delete and a create; then etcd forgets the history.
      await events.delete('first');
      await events.create(event('third'));
      await plane.compactEtcd();
      source.resume();

      await eventually(() => expect(informer.health().relists).toBe(1));
      await eventually(() =>
        expect(informer.lister.keys().sort()).toEqual([
          `${namespace}/second`,
          `${namespace}/third`,
        ]),
      );
      // The watch reopened at the compacted resourceVersion; the relist was at that same one.
      expect(source.watches.at(-2)?.resourceVersion).toBe(watchedFrom);
      expect(source.lists.at(-1)?.resourceVersion).toBe(watchedFrom);
      expect(deleted).toHaveLength(1);
      expect(deleted[0]).toBeInstanceOf(DeletedFinalStateUnknown);
      expect((deleted[0] as DeletedFinalStateUnknown<CoreEvent>).key).toBe(`${namespace}/first`);
      expect(added).toEqual(['first', 'second', 'third']);
      expect(informer.health()).toMatchObject({ ready: true, failures: 0 });
    } finally {
      await informer.stop();
    }
  });
});
