import { randomBytes } from 'node:crypto';
import { type Clientset, type DynamicResourceClient, type UnstructuredObject } from '@k/clientset';
import { useTestNamespace } from '@k/envtest/vitest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ControllerBuilder } from '../src/index.js';
import { Informer, type InformerError } from '../src/informer.js';
import { clientsetFor, eventually } from './helpers.js';

// One tenant's custom resource with free-form data (`x-kubernetes-preserve-unknown-fields`)
// nested as deep as the real API server accepts must not stop an informer or a controller of its
// kind, nor hide the other objects of that kind. JSON.parse reads any depth; every walk after it
// must too (a recursive one overflowed the stack near 6,000 levels).

/**
 * MAX_DEPTH is the deepest document kube-apiserver v1.37 accepts, counting the object itself as
 * level 1 (`spec` is 2, `spec.data` 3): one level more is refused by its JSON decoder (400,
 * "exceeded max depth"). It stores and serves such an object, in a list and a watch too.
 */
const MAX_DEPTH = 10_000;

const namespace = useTestNamespace({ prefix: 'runtime-hostile' });
let cs: Clientset;
let group: string;
/** things is the dynamic client of Things in the test's own namespace. */
let things: DynamicResourceClient;

beforeAll(async () => {
  cs = await clientsetFor();
  group = `g${randomBytes(6).toString('hex')}.k-runtime.test`;
  await cs.applyManifests(
    `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: things.${group} }
spec:
  group: ${group}
  scope: Namespaced
  names: { plural: things, kind: Thing }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                owner: { type: string }
                data: { type: object, x-kubernetes-preserve-unknown-fields: true }
`,
    { fieldManager: 'runtime-e2e' },
  );
});

beforeEach(async () => {
  things = await cs.dynamic.forKind(`${group}/v1`, 'Thing', namespace.name);
});

afterAll(async () => {
  await cs?.apiextensionsV1
    .customResourceDefinitions()
    .delete(`things.${group}`)
    .catch(() => undefined);
  await cs?.close();
});

/**
 * deepThingText is the JSON of a Thing whose document nests `depth` levels: `spec.data` holds
 * objects and arrays in turn down to a string. Written as text: JSON.stringify overflows the
 * stack long before such a depth.
 */
function deepThingText(name: string, depth: number): string {
  const levels = depth - 3; // the Thing, its spec and spec.data
  let open = '';
  let close = '';
  for (let level = 0; level < levels; level += 1) {
    open += level % 2 === 0 ? '{"next":' : '[';
    close += level % 2 === 0 ? '}' : ']';
  }
  const data = `${open}"the bottom"${[...close].reverse().join('')}`;
  return `{"apiVersion":"${group}/v1","kind":"Thing","metadata":{"name":"${name}","namespace":"${namespace.name}"},"spec":{"owner":"tenant-b","data":{"next":${data}}}}`;
}

/** createRaw sends a Thing's JSON text as it is (the dynamic client would encode an object). */
function createRaw(text: string): Promise<UnstructuredObject> {
  return cs.rest
    .withGroupVersion(`${group}/v1`)
    .post()
    .namespace(namespace.name)
    .resource('things')
    .body(text)
    .execute<UnstructuredObject>();
}

/** depthOf measures how deep `value` nests (the object itself is 1), by a loop, not recursion. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 1]];
  for (let entry = pending.pop(); entry !== undefined; entry = pending.pop()) {
    const [node, depth] = entry;
    if (typeof node !== 'object' || node === null) continue;
    deepest = Math.max(deepest, depth);
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  return deepest;
}

/** bottomOf follows `spec.data` down to the string at its bottom. */
function bottomOf(thing: UnstructuredObject | undefined): unknown {
  let node: unknown = (thing?.spec as { data?: unknown } | undefined)?.data;
  while (typeof node === 'object' && node !== null)
    node = Array.isArray(node) ? node[0] : (node as { next: unknown }).next;
  return node;
}

function plainThing(name: string): UnstructuredObject {
  return {
    apiVersion: `${group}/v1`,
    kind: 'Thing',
    metadata: { name },
    spec: { owner: 'tenant-a', data: { replicas: 2, image: 'registry.example.com/web:1.0' } },
  };
}

describe('a custom resource nested as deep as the API server accepts (real server)', () => {
  it(`is stored at ${MAX_DEPTH} levels and refused at one more`, async () => {
    const stored = await createRaw(deepThingText('deepest', MAX_DEPTH));
    expect(depthOf(stored)).toBe(MAX_DEPTH);
    expect(bottomOf(stored)).toBe('the bottom');
    await expect(createRaw(deepThingText('too-deep', MAX_DEPTH + 1))).rejects.toMatchObject({
      code: 'ERR_REST_API_STATUS',
      status: { reason: 'BadRequest', code: 400 },
    });
  });

  it.each([
    ['a streaming list', true],
    ['a paged LIST', false],
  ])(
    'an informer syncs through %s and holds it beside the normal objects, then watches more of both',
    async (_, watchList) => {
      await createRaw(deepThingText('deep-1', MAX_DEPTH));
      await Promise.all(
        ['plain-1', 'plain-2', 'plain-3'].map((name) => things.create(plainThing(name))),
      );
      // The first LIST asks at resourceVersion 0, which the server's cache answers, a moment
      // behind: wait until it holds all four, so that they arrive in the initial list.
      await eventually(async () =>
        expect((await things.list({ resourceVersion: '0' })).items).toHaveLength(4),
      );
      const informer = new Informer<UnstructuredObject>(things, { watchList, pageSize: 2 });
      const errors: InformerError[] = [];
      informer.addErrorHandler((error) => errors.push(error));
      const initial: string[] = [];
      informer.addEventHandler({
        onAdd: (thing, isInInitialList) => {
          if (isInInitialList) initial.push(thing.metadata?.name ?? '');
        },
      });
      informer.start();
      try {
        await informer.waitForSync(AbortSignal.timeout(30_000));
        const key = (name: string) => `${namespace.name}/${name}`;
        expect(initial.sort()).toEqual(['deep-1', 'plain-1', 'plain-2', 'plain-3']);
        expect(
          informer.lister
            .list()
            .map((thing) => thing.metadata?.name)
            .sort(),
        ).toEqual(['deep-1', 'plain-1', 'plain-2', 'plain-3']);
        const deep = informer.lister.get(key('deep-1'));
        expect(depthOf(deep)).toBe(MAX_DEPTH);
        expect(bottomOf(deep)).toBe('the bottom');
        expect(informer.lister.get(key('plain-2'))?.spec).toEqual(plainThing('plain-2').spec);

        // The watch delivers a deep one and a normal one created after the sync.
        await createRaw(deepThingText('deep-2', MAX_DEPTH));
        await things.create(plainThing('plain-4'));
        await eventually(() => expect(informer.lister.get(key('plain-4'))).toBeDefined());
        expect(depthOf(informer.lister.get(key('deep-2')))).toBe(MAX_DEPTH);
        expect(informer.health()).toMatchObject({ synced: true, ready: true });
        expect(errors).toEqual([]);
      } finally {
        await informer.stop();
      }
    },
  );

  it('a controller over its kind starts and reconciles it and the normal objects', async () => {
    await createRaw(deepThingText('deep-1', MAX_DEPTH));
    await things.create(plainThing('plain-1'));
    const informer = new Informer<UnstructuredObject>(things);
    const depths = new Map<string, number>();
    const controller = new ControllerBuilder('things')
      .for(informer)
      .complete((thing, { request }) => {
        depths.set(request.name, depthOf(thing));
      });
    const stop = new AbortController();
    // start() rejects with ERR_RUNTIME_NOT_SYNCED when its informer never syncs.
    const started = controller.start(stop.signal);
    try {
      await eventually(() => expect(depths.size).toBe(2));
      expect(depths.get('deep-1')).toBe(MAX_DEPTH);
      expect(depths.get('plain-1')).toBe(depthOf(informer.lister.get(`${namespace.name}/plain-1`)));
      expect(depths.get('plain-1')).toBeLessThan(10);
    } finally {
      stop.abort();
      await started;
      await informer.stop();
    }
  });

  it('the dynamic client gets, lists, applies to it and sends it whole', async () => {
    await createRaw(deepThingText('deep-1', MAX_DEPTH));
    const got = await things.get('deep-1');
    expect(depthOf(got)).toBe(MAX_DEPTH);
    const listed = await things.list();
    expect(listed.items.map((thing) => depthOf(thing))).toEqual([MAX_DEPTH]);

    // Server-side apply of a small configuration answers with the whole object.
    const applied = await things.apply(
      {
        apiVersion: `${group}/v1`,
        kind: 'Thing',
        metadata: { name: 'deep-1', labels: { checked: 'yes' } },
      },
      { fieldManager: 'runtime-e2e-labels' },
    );
    expect(applied.metadata?.labels).toEqual({ checked: 'yes' });
    expect(bottomOf(applied)).toBe('the bottom');
    expect(depthOf(applied)).toBe(MAX_DEPTH);

    // Sent whole, deeper than JSON.stringify's recursion reaches (about 4,000 levels): by
    // server-side apply and by a get-then-update, as client-go can.
    const whole = {
      apiVersion: `${group}/v1`,
      kind: 'Thing',
      metadata: { name: 'deep-1' },
      spec: got.spec as Record<string, unknown>,
    };
    const reapplied = await things.apply(whole, { fieldManager: 'runtime-e2e', force: true });
    expect(depthOf(reapplied)).toBe(MAX_DEPTH);
    const current = await things.get('deep-1');
    const updated = await things.update({
      ...current,
      metadata: { ...current.metadata, annotations: { updated: 'whole' } },
    });
    expect(updated.metadata?.annotations).toEqual({ updated: 'whole' });
    expect(depthOf(updated)).toBe(MAX_DEPTH);
    expect(bottomOf(updated)).toBe('the bottom');
  });
});
