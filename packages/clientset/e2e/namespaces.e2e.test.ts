import { isNotFound } from '@k/rest';
import { uniqueNamespaceName } from '@k/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientsetError, type Clientset, type ResourceClient } from '../src/index.js';
import { caught } from '@k/test-utils';
import { clientsetFor, eventually } from './helpers.js';

let cs: Clientset;
const made: string[] = [];

beforeAll(async () => {
  cs = await clientsetFor();
});

afterAll(async () => {
  for (const name of made)
    await cs.coreV1
      .namespaces()
      .delete(name)
      .catch(() => undefined);
  await cs?.close();
});

describe('Namespaces through the typed core/v1 client (cluster-scoped)', () => {
  it('create, get, list, watch, update, patch, apply, status and delete', async () => {
    const namespaces = cs.coreV1.namespaces();
    const name = uniqueNamespaceName('clientset-ns');
    made.push(name);
    const { metadata } = await namespaces.list({ limit: 1 });
    const watch = await namespaces.watch({
      fieldSelector: `metadata.name=${name}`,
      resourceVersion: metadata?.resourceVersion,
    });
    const types: string[] = [];
    const watching = (async () => {
      for await (const event of watch) {
        types.push(event.type);
        if (types.includes('MODIFIED') && event.object.metadata?.labels?.step === 'patched') break;
      }
    })();
    const created = await namespaces.create({ metadata: { name } });
    expect(created.status?.phase).toBe('Active');
    expect((await namespaces.get(name)).metadata?.uid).toBe(created.metadata?.uid);
    expect((await namespaces.list()).items.map((item) => item.metadata?.name)).toContain(name);
    const updated = await namespaces.update({
      ...(await namespaces.get(name)),
      metadata: { ...created.metadata, labels: { step: 'updated' } },
    });
    expect(updated.metadata?.labels?.step).toBe('updated');
    await namespaces.patch(name, 'merge', { metadata: { labels: { step: 'patched' } } });
    await watching;
    expect(types).toEqual(['ADDED', 'MODIFIED', 'MODIFIED']);
    const applied = await namespaces.apply(
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name, annotations: { applied: 'yes' } } },
      { fieldManager: 'applier' },
    );
    expect(applied.metadata?.annotations?.applied).toBe('yes');
    expect((await namespaces.getStatus(name)).status?.phase).toBe('Active');

    // A namespace is emptied before it goes: the answer is the namespace, still there.
    const deleted = await namespaces.delete(name);
    expect(deleted.gone).toBe(false);
    expect(deleted.object?.status?.phase).toBe('Terminating');
    await eventually(
      async () => expect(isNotFound(await caught(namespaces.get(name)))).toBe(true),
      60_000,
    );
  });

  it('has no deleteCollection, as discovery says: refused before anything is sent', async () => {
    const namespaces = cs.coreV1.namespaces() as unknown as ResourceClient;
    expect('deleteCollection' in cs.coreV1.namespaces()).toBe(true); // one runtime class…
    const error = await caught(Promise.resolve().then(() => namespaces.deleteCollection()));
    expect(ClientsetError.isInstance(error) && error.code).toBe('ERR_CLIENTSET_VERB_NOT_SUPPORTED'); // …checked by descriptor
  });
});
