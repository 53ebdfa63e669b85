import { isConflict, isNotFound } from '@k/rest';
import { caught } from '@k/test-utils';
import { useTestNamespace } from '@k/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ignoreAlreadyExists, ignoreNotFound, type Clientset } from '../src/index.js';
import type { ConfigMap } from '../src/generated/core/v1/index.js';
import { clientsetFor } from './helpers.js';

const namespace = useTestNamespace({ prefix: 'clientset-ignore' });
let cs: Clientset;

beforeAll(async () => {
  cs = await clientsetFor();
});

afterAll(async () => {
  await cs?.close();
});

function configMap(name: string): ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } };
}

describe('ignoreNotFound and ignoreAlreadyExists against the real API server', () => {
  it('a delete or get of a missing ConfigMap resolves undefined; of a present one, its answer', async () => {
    const configMaps = cs.coreV1.configMaps(namespace.name);
    expect(await ignoreNotFound(configMaps.delete('missing'))).toBeUndefined();
    expect(await ignoreNotFound(configMaps.get('missing'))).toBeUndefined();
    await configMaps.create(configMap('present'));
    expect((await ignoreNotFound(configMaps.get('present')))?.data).toEqual({ a: '1' });
    expect(await ignoreNotFound(configMaps.delete('present'))).toBeDefined();
    expect(await ignoreNotFound(configMaps.delete('present'))).toBeUndefined();
  });

  it('a create of an existing ConfigMap resolves undefined; a create elsewhere still fails', async () => {
    const configMaps = cs.coreV1.configMaps(namespace.name);
    const created = await ignoreAlreadyExists(configMaps.create(configMap('twice')));
    expect(created?.metadata?.uid).toBeTruthy();
    expect(await ignoreAlreadyExists(configMaps.create(configMap('twice')))).toBeUndefined();
    // NotFound is not AlreadyExists: a create in a namespace that does not exist still fails.
    const missingNamespace = cs.coreV1.configMaps(`${namespace.name}-missing`);
    expect(
      isNotFound(await caught(ignoreAlreadyExists(missingNamespace.create(configMap('x'))))),
    ).toBe(true);
  });

  it('an update with a stale resourceVersion is a Conflict, which neither ignores', async () => {
    const configMaps = cs.coreV1.configMaps(namespace.name);
    const first = await configMaps.create(configMap('stale'));
    await configMaps.update({ ...first, data: { a: '2' } });
    const stale = { ...first, data: { a: '3' } };
    const fromAlreadyExists = await caught(ignoreAlreadyExists(configMaps.update(stale)));
    expect(isConflict(fromAlreadyExists)).toBe(true);
    expect(isConflict(await caught(ignoreNotFound(configMaps.update(stale))))).toBe(true);
    expect((await configMaps.get('stale')).data).toEqual({ a: '2' });
  });
});
