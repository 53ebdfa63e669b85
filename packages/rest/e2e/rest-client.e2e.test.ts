import { loadKubeconfig, resolveConfig } from '@k/config';
import { readControlPlaneState } from '@k/testenv';
import { controlPlane, useTestNamespace } from '@k/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiError } from '../src/index.js';
import {
  createRestClient,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isResourceExpired,
  retryOnConflict,
  type RestClient,
  type ThrottleEvent,
  type WatchEvent,
} from '../src/index.js';
import type { WarningHeader } from '../src/warnings.js';
import { caught } from '@k/test-utils';
import { RequestExecutor } from '../src/client/request-executor.js';

interface ConfigMap {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    annotations?: Record<string, string>;
    managedFields?: { manager?: string; operation?: string }[];
  };
  data?: Record<string, string>;
}

interface ConfigMapList {
  metadata: { resourceVersion: string; continue?: string };
  items: ConfigMap[];
}

const namespace = useTestNamespace({ prefix: 'rest' });
const warnings: WarningHeader[] = [];
let client: RestClient;
let alice: RestClient;

async function clientFor(context: string, options: Parameters<typeof createRestClient>[1] = {}) {
  const loaded = await loadKubeconfig({ explicitPath: controlPlane().kubeconfigPath });
  return createRestClient(resolveConfig(loaded, { context }), options);
}

beforeAll(async () => {
  client = await clientFor('admin', {
    throttle: 'off',
    warningHandler: { handleWarning: (warning) => warnings.push(warning) },
  });
  alice = await clientFor('alice');
});

afterAll(async () => {
  await client?.dispatcher.close();
  await alice?.dispatcher.close();
});

function configMap(name: string, data: Record<string, string> = {}): ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data };
}

function configMaps(): ReturnType<RestClient['get']> {
  return client.get().namespace(namespace.name).resource('configmaps');
}

/** compactEtcd compacts the control plane's etcd (plain HTTP on loopback) at its current revision. */
async function compactEtcd(): Promise<void> {
  const etcd = `http://127.0.0.1:${readControlPlaneState(controlPlane().kubeconfigPath).ports.etcd}`;
  const range = (await (
    await fetch(`${etcd}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: 'AA==' }) })
  ).json()) as { header: { revision: string } };
  const compacted = await fetch(`${etcd}/v3/kv/compaction`, {
    method: 'POST',
    body: JSON.stringify({ revision: range.header.revision, physical: true }),
  });
  expect(compacted.status).toBe(200);
}

/** createCrd installs a namespaced `widgets.<group>` CRD and waits until it is Established. */
async function createCrd(group: string): Promise<string> {
  const name = `widgets.${group}`;
  const crds = client.withGroupVersion('apiextensions.k8s.io/v1');
  await crds
    .post()
    .resource('customresourcedefinitions')
    .body({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        ],
      },
    })
    .execute();
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const current = await crds
      .get()
      .resource('customresourcedefinitions')
      .name(name)
      .execute<{ status?: { conditions?: { type: string; status: string }[] } }>();
    const established = current.status?.conditions?.some(
      (condition) => condition.type === 'Established' && condition.status === 'True',
    );
    if (established) {
      // Established is set before the new group is served; wait for its list to answer.
      const served = await client
        .withGroupVersion(`${group}/v1`)
        .get()
        .resource('widgets')
        .execute()
        .then(() => true)
        .catch(() => false);
      if (served) return name;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`CRD ${name} was not established in time`);
}

describe('RestClient against the real API server', () => {
  it('creates, gets, updates and deletes a ConfigMap', async () => {
    const created = await client
      .post()
      .namespace(namespace.name)
      .resource('configmaps')
      .body(configMap('settings', { color: 'blue' }))
      .execute<ConfigMap>();
    expect(created.metadata.namespace).toBe(namespace.name);
    expect(created.metadata.resourceVersion).toMatch(/^\d+$/);

    const again = await caught(
      client
        .post()
        .namespace(namespace.name)
        .resource('configmaps')
        .body(configMap('settings'))
        .execute(),
    );
    expect(isAlreadyExists(again)).toBe(true);

    const fetched = await configMaps().name('settings').execute<ConfigMap>();
    expect(fetched.data).toEqual({ color: 'blue' });

    const updated = await client
      .put()
      .namespace(namespace.name)
      .resource('configmaps')
      .name('settings')
      .body({ ...fetched, data: { color: 'green' } })
      .execute<ConfigMap>();
    expect(updated.data).toEqual({ color: 'green' });
    expect(updated.metadata.resourceVersion).not.toBe(fetched.metadata.resourceVersion);

    const patched = await client
      .patch('merge')
      .namespace(namespace.name)
      .resource('configmaps')
      .name('settings')
      .body({ data: { size: 'xl' } })
      .execute<ConfigMap>();
    expect(patched.data).toEqual({ color: 'green', size: 'xl' });

    const jsonPatched = await client
      .patch('json')
      .namespace(namespace.name)
      .resource('configmaps')
      .name('settings')
      .body([{ op: 'remove', path: '/data/color' }])
      .execute<ConfigMap>();
    expect(jsonPatched.data).toEqual({ size: 'xl' });

    const strategic = await client
      .patch('strategic-merge')
      .namespace(namespace.name)
      .resource('configmaps')
      .name('settings')
      .body({ metadata: { labels: { tier: 'web' } } })
      .execute<ConfigMap & { metadata: { labels?: Record<string, string> } }>();
    expect(strategic.metadata.labels).toEqual({ tier: 'web' });

    await client
      .delete()
      .namespace(namespace.name)
      .resource('configmaps')
      .name('settings')
      .execute();
    const gone = await caught(configMaps().name('settings').execute());
    expect(isNotFound(gone)).toBe(true);
    expect((gone as ApiError).message).toBe('configmaps "settings" not found');
  });

  it('fails an update with a stale resourceVersion with a 409 conflict; retryOnConflict recovers', async () => {
    const created = await client
      .post()
      .namespace(namespace.name)
      .resource('configmaps')
      .body(configMap('counter', { value: '0' }))
      .execute<ConfigMap>();
    await client
      .put()
      .namespace(namespace.name)
      .resource('configmaps')
      .name('counter')
      .body({ ...created, data: { value: '1' } })
      .execute();
    const stale = await caught(
      client
        .put()
        .namespace(namespace.name)
        .resource('configmaps')
        .name('counter')
        .body({ ...created, data: { value: 'stale' } })
        .execute(),
    );
    expect(isConflict(stale)).toBe(true);
    expect((stale as ApiError).statusCode).toBe(409);
    expect((stale as ApiError).reason).toBe('Conflict');

    let attempts = 0;
    const final = await retryOnConflict(async () => {
      attempts += 1;
      // The first attempt deliberately reuses the stale copy; later ones read afresh.
      const current =
        attempts === 1 ? created : await configMaps().name('counter').execute<ConfigMap>();
      return client
        .put()
        .namespace(namespace.name)
        .resource('configmaps')
        .name('counter')
        .body({ ...current, data: { value: String(Number(current.data?.value ?? 0) + 1) } })
        .execute<ConfigMap>();
    });
    expect(attempts).toBe(2);
    expect(final.data).toEqual({ value: '2' });
  });

  it('server-side applies, fails on a second manager’s conflict, and force resolves it', async () => {
    const apply = (manager: string, value: string, force?: boolean) =>
      client
        .apply({ fieldManager: manager, ...(force !== undefined ? { force } : {}) })
        .namespace(namespace.name)
        .resource('configmaps')
        .name('applied')
        .body(configMap('applied', { owner: value }))
        .execute<ConfigMap>();
    const first = await apply('alpha', 'alpha');
    expect(first.data).toEqual({ owner: 'alpha' });
    expect(first.metadata.managedFields?.map((field) => field.manager)).toEqual(['alpha']);

    const conflict = await caught(apply('beta', 'beta'));
    expect(isConflict(conflict)).toBe(true);
    const causes = (conflict as ApiError).details?.causes ?? [];
    expect(causes[0]?.reason).toBe('FieldManagerConflict');
    expect(causes[0]?.field).toBe('.data.owner');
    expect((conflict as Error).message).toContain('conflict with "alpha"');

    const forced = await apply('beta', 'beta', true);
    expect(forced.data).toEqual({ owner: 'beta' });
    expect(forced.metadata.managedFields?.map((field) => field.manager)).toEqual(['beta']);
  });

  it('reports validation errors with their causes and hands warnings to the handler', async () => {
    const invalid = await caught(
      client
        .post()
        .namespace(namespace.name)
        .resource('configmaps')
        .body(configMap('Not_Valid'))
        .execute(),
    );
    expect(isInvalid(invalid)).toBe(true);
    expect((invalid as ApiError).details?.causes?.[0]?.field).toBe('metadata.name');

    warnings.length = 0;
    await client
      .post()
      .namespace(namespace.name)
      .resource('configmaps')
      .param('fieldValidation', 'Warn')
      .body({ ...configMap('warned'), unknownField: 1 })
      .execute();
    expect(warnings.map((warning) => warning.text)).toEqual(['unknown field "unknownField"']);
    expect(warnings[0]?.code).toBe(299);
  });

  it('surfaces RBAC denials as isForbidden', async () => {
    const denied = await caught(
      alice.get().namespace(namespace.name).resource('configmaps').execute(),
    );
    expect(isForbidden(denied)).toBe(true);
    expect((denied as Error).message).toContain('"alice"');
  });

  it('watches with bookmarks: initial events end with a bookmark, then live changes arrive', async () => {
    await client
      .post()
      .namespace(namespace.name)
      .resource('configmaps')
      .body(configMap('before'))
      .execute();
    const watch = await configMaps()
      .params({ sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', timeoutSeconds: 30 })
      .watch<ConfigMap>({ allowWatchBookmarks: true });
    const seen: WatchEvent<ConfigMap>[] = [];
    for await (const event of watch) {
      seen.push(event);
      if (
        event.type === 'BOOKMARK' &&
        event.object.metadata.annotations?.['k8s.io/initial-events-end'] === 'true'
      ) {
        await client
          .post()
          .namespace(namespace.name)
          .resource('configmaps')
          .body(configMap('after'))
          .execute();
      }
      if (event.type === 'ADDED' && event.object.metadata.name === 'after') break;
    }
    const names = seen.map((event) => `${event.type}:${event.object.metadata.name ?? ''}`);
    expect(names.filter((name) => name !== 'ADDED:kube-root-ca.crt')).toEqual([
      'ADDED:before',
      'BOOKMARK:',
      'ADDED:after',
    ]);
    expect(
      seen.find((event) => event.type === 'BOOKMARK')?.object.metadata.resourceVersion,
    ).toMatch(/^\d+$/);
  });

  it('decodes watch events without managedFields when asked (omitManagedFields)', async () => {
    const applied = await client
      .apply({ fieldManager: 'omit-test' })
      .namespace(namespace.name)
      .resource('configmaps')
      .name('omitted')
      .body(configMap('omitted', { a: '1' }))
      .execute<ConfigMap>();
    expect(applied.metadata.managedFields?.map((field) => field.manager)).toEqual(['omit-test']);
    // The streaming list (gzip-compressed when the transport asks, as it does by default) …
    const initial = async (omitManagedFields: boolean): Promise<ConfigMap | undefined> => {
      const watch = await configMaps()
        .params({
          sendInitialEvents: true,
          resourceVersionMatch: 'NotOlderThan',
          timeoutSeconds: 30,
        })
        .watch<ConfigMap>({ allowWatchBookmarks: true, omitManagedFields });
      let found: ConfigMap | undefined;
      for await (const event of watch) {
        if (event.object.metadata.name === 'omitted') found = event.object;
        if (event.type === 'BOOKMARK') break;
      }
      return found;
    };
    const [kept, omitted] = await Promise.all([initial(false), initial(true)]);
    expect(kept?.metadata.managedFields).toHaveLength(1);
    const metadata = { ...kept!.metadata };
    delete metadata.managedFields;
    expect(omitted).toEqual({ ...kept, metadata });
    // … and a plain watch of changes.
    const watch = await configMaps()
      .params({ resourceVersion: applied.metadata.resourceVersion, timeoutSeconds: 30 })
      .watch<ConfigMap>({ omitManagedFields: true });
    await client
      .patch('merge')
      .namespace(namespace.name)
      .resource('configmaps')
      .name('omitted')
      .body({ data: { a: '2' } })
      .execute();
    let changed: WatchEvent<ConfigMap> | undefined;
    for await (const event of watch) {
      changed = event;
      break;
    }
    expect(changed?.type).toBe('MODIFIED');
    expect(changed?.object.data).toEqual({ a: '2' });
    expect(changed?.object.metadata.managedFields).toBeUndefined();
    expect(changed?.object.metadata.resourceVersion).toMatch(/^\d+$/);
  });

  it('fails a watch and a read from a too-old resourceVersion with an isGone error (410 Expired)', async () => {
    // A fresh CRD's watch cache starts at the current revision, so revision 1 is too old for it
    // whatever the cluster's age; kube-apiserver compacts etcd every 5 minutes, and compacting now
    // makes etcd refuse revision 1 too, wherever the request is served from.
    const group = `rest-${Date.now().toString(36)}.k.test`;
    const crd = await createCrd(group);
    try {
      await compactEtcd();
      const widgets = client
        .withGroupVersion(`${group}/v1`)
        .get()
        .namespace(namespace.name)
        .resource('widgets');
      const watchError = await caught(
        (async () => {
          const watch = await widgets.param('resourceVersion', '1').watch();
          for await (const event of watch) throw new Error(`expected no events, got ${event.type}`);
        })(),
      );
      expect(isGone(watchError)).toBe(true);
      expect(isResourceExpired(watchError)).toBe(true);
      expect((watchError as ApiError).statusCode).toBe(410);
      expect((watchError as Error).message).toMatch(/too old/);

      const listError = await caught(
        client
          .withGroupVersion(`${group}/v1`)
          .get()
          .namespace(namespace.name)
          .resource('widgets')
          .params({ resourceVersion: '1', resourceVersionMatch: 'Exact' })
          .execute(),
      );
      expect(isGone(listError)).toBe(true);
      expect((listError as ApiError).statusCode).toBe(410);
    } finally {
      await client
        .delete()
        .absPath('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)
        .execute()
        .catch(() => undefined);
    }
  });

  it('pages through 1,100 ConfigMaps with limit/continue', async () => {
    const total = 1100;
    const names = Array.from(
      { length: total },
      (_, index) => `page-${String(index).padStart(4, '0')}`,
    );
    for (let start = 0; start < total; start += 50) {
      await Promise.all(
        names
          .slice(start, start + 50)
          .map((name) =>
            client
              .post()
              .namespace(namespace.name)
              .resource('configmaps')
              .body(configMap(name))
              .execute(),
          ),
      );
    }
    const pageSizes: number[] = [];
    const seen: string[] = [];
    for await (const page of configMaps().pager<ConfigMap>({ pageSize: 250 })) {
      expect(page.restarted).toBe(false);
      pageSizes.push(page.items.length);
      for (const item of page.items) seen.push(item.metadata.name);
    }
    const ours = seen.filter((name) => name.startsWith('page-'));
    expect(ours).toEqual(names);
    expect(pageSizes.slice(0, 4)).toEqual([250, 250, 250, 250]);
    expect(pageSizes.length).toBe(5);

    const list = await configMaps()
      .param('labelSelector', '!absent')
      .pager<ConfigMap>({ pageSize: 400 })
      .list();
    expect(list.items.filter((item) => item.metadata.name.startsWith('page-'))).toHaveLength(total);
    expect(list.metadata?.continue).toBeUndefined();
    const single = await configMaps().param('limit', 3).execute<ConfigMapList>();
    expect(single.items).toHaveLength(3);
    expect(single.metadata.continue).toBeTruthy();
  });
});

describe('a buffered read that accepts protobuf, on the real API server', () => {
  const PROTOBUF_ACCEPT = 'application/vnd.kubernetes.protobuf,application/json';
  const executor = () =>
    new RequestExecutor({
      dispatcher: client.dispatcher,
      origin: client.server.origin,
      basePath: '',
      throttle: client.options.throttle,
      retry: client.options.retry,
      defaultTimeoutMs: 30_000,
      warningHandler: client.options.warningHandler,
      clock: client.options.clock,
      onRetry: undefined,
      onThrottle: undefined,
    });

  it('hands a protobuf answer over as bytes and a JSON one as text, decoded before the parse', async () => {
    const namespace = client.get().absPath('/api/v1/namespaces/default');
    const pb = await executor().buffered(
      namespace.accept(PROTOBUF_ACCEPT).build(),
      'protobuf-or-text',
    );
    expect(pb.headers['content-type']).toBe('application/vnd.kubernetes.protobuf');
    expect(Buffer.isBuffer(pb.body)).toBe(true);
    // /version has no protobuf form: the server answers JSON whatever the Accept says.
    const version = client.get().absPath('/version').accept(PROTOBUF_ACCEPT).build();
    const json = await executor().buffered(version, 'protobuf-or-text');
    expect(json.headers['content-type']).toBe('application/json');
    expect(typeof json.body).toBe('string');
    expect(JSON.parse(json.body as string)).toHaveProperty('gitVersion');
  });
});

describe('time in the client-side throttle, on the real API server', () => {
  it('tells onThrottle how long the second request of a 1 qps, burst 1 client waited', async () => {
    const events: ThrottleEvent[] = [];
    const throttled = await clientFor('admin', {
      throttle: { qps: 1, burst: 1 },
      onThrottle: (event) => events.push(event),
    });
    try {
      const path = '/api/v1/namespaces/default';
      await throttled.get().absPath(path).execute();
      await throttled.get().absPath(path).execute();
      const host = new URL(throttled.server.origin).host;
      expect(events).toEqual([
        { request: { method: 'GET', path }, host, waitedMs: 0 },
        { request: { method: 'GET', path }, host, waitedMs: expect.any(Number) as number },
      ]);
      // The bucket was empty after the first request: the second waited for the refill.
      expect(events[1]!.waitedMs).toBeGreaterThan(0);
    } finally {
      await throttled.close();
    }
  });
});
