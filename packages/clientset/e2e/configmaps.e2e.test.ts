import { isAlreadyExists, isInvalid, isNotFound, isBadRequest, type WatchEventType } from '@k/rest';
import { useTestNamespace } from '@k/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplyConflictError, type Clientset } from '../src/index.js';
import type { ConfigMap } from '../src/generated/core/v1/index.js';
import { caught } from '@k/test-utils';
import { clientsetFor, inParallel } from './helpers.js';

const namespace = useTestNamespace({ prefix: 'clientset-cm' });
let cs: Clientset;

beforeAll(async () => {
  cs = await clientsetFor();
});

afterAll(async () => {
  await cs?.close();
});

function configMap(name: string, data: Record<string, string> = {}): ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data };
}

describe('ConfigMaps through the typed core/v1 client', () => {
  it('create, get, list, update, every patch type, apply, delete and deleteCollection', async () => {
    const configMaps = cs.coreV1.configMaps(namespace.name);
    const created = await configMaps.create(configMap('a', { one: '1' }), { fieldManager: 'test' });
    expect(created.metadata?.uid).toBeTruthy();
    expect(typeof created.metadata?.creationTimestamp).toBe('string');
    expect(isAlreadyExists(await caught(configMaps.create(configMap('a'))))).toBe(true);

    const read = await configMaps.get('a');
    expect(read.data).toEqual({ one: '1' });
    const updated = await configMaps.update({ ...read, data: { one: '1', two: '2' } });
    expect(updated.data).toEqual({ one: '1', two: '2' });

    expect(
      (await configMaps.patch('a', 'json', [{ op: 'add', path: '/data/three', value: '3' }])).data
        ?.three,
    ).toBe('3');
    expect((await configMaps.patch('a', 'merge', { data: { one: null } })).data).toEqual({
      two: '2',
      three: '3',
    });
    expect(
      (await configMaps.patch('a', 'strategic-merge', { metadata: { labels: { app: 'x' } } }))
        .metadata?.labels,
    ).toEqual({ app: 'x' });

    const applied = await configMaps.apply(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'b', labels: { app: 'x' } },
        data: { k: 'v' },
      },
      { fieldManager: 'applier' },
    );
    expect(
      applied.metadata?.managedFields?.some(
        (entry) => entry.manager === 'applier' && entry.operation === 'Apply',
      ),
    ).toBe(true);

    const list = await configMaps.list({ labelSelector: { app: 'x' } });
    expect(list.items.map((item) => item.metadata?.name).sort()).toEqual(['a', 'b']);
    expect(list.metadata?.resourceVersion).toBeTruthy();

    const deleted = await configMaps.delete('a');
    expect(deleted.gone).toBe(true);
    expect(isNotFound(await caught(configMaps.get('a')))).toBe(true);
    await configMaps.deleteCollection({ labelSelector: 'app=x' });
    expect((await configMaps.list({ labelSelector: 'app=x' })).items).toEqual([]);
  });

  it('an apply conflict between two field managers is a typed conflict error; force resolves it', async () => {
    const configMaps = cs.coreV1.configMaps(namespace.name);
    const mine = {
      apiVersion: 'v1' as const,
      kind: 'ConfigMap' as const,
      metadata: { name: 'shared' },
    };
    await configMaps.apply({ ...mine, data: { color: 'red' } }, { fieldManager: 'first' });
    const error = await caught(
      configMaps.apply({ ...mine, data: { color: 'blue' } }, { fieldManager: 'second' }),
    );
    expect(error).toBeInstanceOf(ApplyConflictError);
    expect((error as ApplyConflictError).conflicts).toEqual([
      {
        field: '.data.color',
        manager: 'first',
        message: expect.stringContaining('conflict with "first"') as unknown,
      },
    ]);
    const forced = await configMaps.apply(
      { ...mine, data: { color: 'blue' } },
      { fieldManager: 'second', force: true },
    );
    expect(forced.data?.color).toBe('blue');
    const owners = forced.metadata?.managedFields?.map((entry) => entry.manager);
    expect(owners).toContain('second');
  });

  it('server dry-run creates nothing', async () => {
    const configMaps = cs.coreV1.configMaps(namespace.name);
    const answer = await configMaps.create(configMap('dry', { a: 'b' }), { dryRun: 'All' });
    expect(answer.metadata?.name).toBe('dry');
    expect(isNotFound(await caught(configMaps.get('dry')))).toBe(true);
    await configMaps.apply(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry-apply' } },
      { fieldManager: 'm', dryRun: 'All' },
    );
    expect(isNotFound(await caught(configMaps.get('dry-apply')))).toBe(true);
    await configMaps.create(configMap('kept'));
    await configMaps.delete('kept', { dryRun: 'All' });
    expect((await configMaps.get('kept')).metadata?.name).toBe('kept');
  });

  it("fieldValidation 'Strict' rejects an unknown field", async () => {
    const configMaps = cs.coreV1.configMaps(namespace.name);
    const withUnknown = { ...configMap('strict'), colour: 'red' } as ConfigMap;
    const error = await caught(configMaps.create(withUnknown, { fieldValidation: 'Strict' }));
    expect(isBadRequest(error) || isInvalid(error)).toBe(true);
    expect((error as Error).message).toMatch(/unknown field "colour"/);
    // Without Strict the server drops the field (and warns).
    expect(
      (await configMaps.create(withUnknown, { fieldValidation: 'Ignore' })).metadata?.name,
    ).toBe('strict');
  });

  it('listAll pages through 1,200 ConfigMaps with limit 100', async () => {
    const configMaps = cs.coreV1.configMaps(namespace.name);
    const names = Array.from(
      { length: 1200 },
      (_, index) => `bulk-${String(index).padStart(4, '0')}`,
    );
    await inParallel(names, 24, (name) =>
      configMaps.create({ metadata: { name, labels: { bulk: 'yes' } }, data: { index: name } }),
    );
    const pages: number[] = [];
    for await (const page of configMaps.listPages({ labelSelector: 'bulk=yes', pageSize: 100 })) {
      pages.push(page.items.length);
    }
    // Selectors are applied to each page of 100 objects the server reads, so the namespace's other
    // ConfigMap (kube-root-ca.crt) can shorten a page and leave a last one.
    expect(pages.reduce((sum, count) => sum + count, 0)).toBe(1200);
    expect(pages.length).toBeGreaterThanOrEqual(12);
    expect(Math.max(...pages)).toBe(100);
    const all = await configMaps.listAll({ labelSelector: 'bulk=yes', pageSize: 100 });
    expect(all.items).toHaveLength(1200);
    expect(new Set(all.items.map((item) => item.metadata?.name)).size).toBe(1200);
    expect(all.metadata?.continue).toBeUndefined();
  }, 240_000);

  it('a typed watch sees ADDED, MODIFIED and DELETED', async () => {
    const configMaps = cs.coreV1.configMaps(namespace.name);
    const { metadata } = await configMaps.list();
    const watch = await configMaps.watch({
      resourceVersion: metadata?.resourceVersion,
      fieldSelector: 'metadata.name=watched',
      timeoutSeconds: 60,
    });
    const seen: [WatchEventType, string | undefined][] = [];
    const done = (async () => {
      for await (const event of watch) {
        seen.push([event.type, event.object.data?.step]);
        if (event.type === 'DELETED') break;
      }
    })();
    await configMaps.create(configMap('watched', { step: 'one' }));
    await configMaps.patch('watched', 'merge', { data: { step: 'two' } });
    await configMaps.delete('watched');
    await done;
    expect(seen).toEqual([
      ['ADDED', 'one'],
      ['MODIFIED', 'two'],
      ['DELETED', 'two'],
    ]);
  });

  it('writes as the tester user (bearer token, edit role) and is refused as alice', async () => {
    const tester = await clientsetFor('tester');
    const alice = await clientsetFor('alice');
    try {
      await tester.coreV1.configMaps(namespace.name).create(configMap('by-tester'));
      const error = await caught(alice.coreV1.configMaps(namespace.name).get('by-tester'));
      expect((error as { statusCode?: number }).statusCode).toBe(403);
    } finally {
      await tester.close();
      await alice.close();
    }
  });
});
