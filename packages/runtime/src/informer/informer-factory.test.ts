// InformerFactory over in-memory sources (../__fixtures__/memory-source.ts), which look like
// @k/clientset resource clients when given a descriptor: sharing, start, sync, stop, health.
import type { KubernetesObject } from '@k/clientset';
import { configMapsResource, type ConfigMap } from '@k/clientset/core/v1';
import { FakeClock } from '@k/rest/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { MemorySource, statusError } from '../__fixtures__/memory-source.js';
import { InformerFactory } from './informer-factory.js';

const configMap = (namespace: string, name: string): ConfigMap => ({
  metadata: { name, namespace },
});

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const factories: InformerFactory[] = [];

afterEach(async () => {
  await Promise.all(factories.splice(0).map((factory) => factory.stop()));
});

/** factoryOf makes a factory whose informers run on a fake clock without jitter. */
function factoryOf() {
  const clock = new FakeClock();
  const factory = new InformerFactory({ clock, random: () => 0 });
  factories.push(factory);
  return { factory, clock };
}

describe('InformerFactory', () => {
  it('shares one informer per client, resource, namespace and selection', () => {
    const { factory } = factoryOf();
    const source = new MemorySource<ConfigMap>({ descriptor: configMapsResource });
    const all = factory.informerFor(source);
    expect(factory.informerFor(source)).toBe(all);
    // A client made again for the same namespace (as `cs.coreV1.configMaps('a')` is) shares it.
    const inA = factory.informerFor(source.inNamespace('a'));
    expect(factory.informerFor(source.inNamespace('a'))).toBe(inA);
    expect(inA).not.toBe(all);
    expect(factory.informerFor(source.inNamespace('b'))).not.toBe(inA);
    // The selection: a label selector as text or as a map is the same selection.
    const web = factory.informerFor(source, { labelSelector: 'app=web' });
    expect(factory.informerFor(source, { labelSelector: { app: 'web' } })).toBe(web);
    expect(web).not.toBe(all);
    expect(factory.informerFor(source, { labelSelector: 'app=db' })).not.toBe(web);
    const named = factory.informerFor(source, { fieldSelector: 'metadata.name=x' });
    expect(named).not.toBe(all);
    expect(factory.informerFor(source, { fieldSelector: 'metadata.name=x' })).toBe(named);
    // Another client of the same resource (another identity, another server) has its own.
    const otherClient = new MemorySource<ConfigMap>({ descriptor: configMapsResource });
    expect(factory.informerFor(otherClient)).not.toBe(all);
    // Another resource of the same client has its own.
    const secrets = new MemorySource<ConfigMap>({
      descriptor: { ...configMapsResource, kind: 'Secret', plural: 'secrets' },
      rest: source.rest,
    });
    expect(factory.informerFor(secrets)).not.toBe(all);
    expect(factory.informers).toHaveLength(8);
    expect(factory.informers.map((informer) => informer.resource)).toEqual([
      'configmaps',
      'configmaps in namespace a',
      'configmaps in namespace b',
      'configmaps',
      'configmaps',
      'configmaps',
      'configmaps',
      'secrets',
    ]);
  });

  it('shares by identity a source that is not a resource client', () => {
    const { factory } = factoryOf();
    const source = new MemorySource<ConfigMap>();
    const informer = factory.informerFor(source, { description: 'plain' });
    expect(factory.informerFor(source)).toBe(informer);
    expect(informer.resource).toBe('plain'); // the first caller's options win
    expect(factory.informerFor(new MemorySource<ConfigMap>())).not.toBe(informer);
    expect(factory.informerFor(source, { labelSelector: 'a=b' })).not.toBe(informer);
  });

  it('gives informers its defaults, under the options of each call', async () => {
    const clock = new FakeClock();
    const factory = new InformerFactory({ clock, random: () => 0, description: 'default' });
    factories.push(factory);
    const managedFields = [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1' }];
    const source = new MemorySource<ConfigMap>();
    source.create({ metadata: { name: 'a', namespace: 'ns', managedFields } });
    const kept = factory.informerFor(source, { transform: false, description: 'kept' });
    const dropped = factory.informerFor(source, { labelSelector: '!missing' });
    expect(kept.resource).toBe('kept');
    expect(dropped.resource).toBe('default');
    factory.start(new AbortController().signal);
    await factory.waitForSync();
    expect(kept.lister.get('ns/a')?.metadata?.managedFields).toEqual(managedFields);
    expect(dropped.lister.get('ns/a')?.metadata).not.toHaveProperty('managedFields');
  });

  it('keeps a default when a call passes that option as undefined', async () => {
    const factory = new InformerFactory({
      clock: new FakeClock(),
      random: () => 0,
      description: 'default',
      transform: false,
    });
    factories.push(factory);
    const managedFields = [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1' }];
    const source = new MemorySource<ConfigMap>();
    source.create({ metadata: { name: 'a', namespace: 'ns', managedFields } });
    const informer = factory.informerFor(source, { description: undefined, transform: undefined });
    expect(informer.resource).toBe('default');
    factory.start(new AbortController().signal);
    await factory.waitForSync();
    expect(informer.lister.get('ns/a')?.metadata?.managedFields).toEqual(managedFields);
  });

  it('start() starts every informer, and those made after it at once; waitForSync waits for all', async () => {
    const { factory } = factoryOf();
    const source = new MemorySource<ConfigMap>({ descriptor: configMapsResource });
    source.create(configMap('a', 'one'));
    source.create(configMap('b', 'two'));
    const inA = factory.informerFor(source.inNamespace('a'));
    expect(inA.running).toBe(false);
    factory.start(new AbortController().signal);
    expect(inA.running).toBe(true);
    const inB = factory.informerFor(source.inNamespace('b'));
    expect(inB.running).toBe(true);
    await factory.waitForSync();
    expect(inA.hasSynced && inB.hasSynced).toBe(true);
    expect(inA.lister.keys()).toEqual(['a/one']);
    expect(inB.lister.keys()).toEqual(['b/two']);
    await settle();
    source.create(configMap('b', 'three'));
    await settle();
    expect(inB.lister.keys().sort()).toEqual(['b/three', 'b/two']);
    expect(inA.lister.keys()).toEqual(['a/one']);
  });

  it('waitForSync rejects with ERR_RUNTIME_NOT_SYNCED when one informer cannot sync before the signal', async () => {
    const { factory } = factoryOf();
    const good = new MemorySource<ConfigMap>();
    const refused = new MemorySource<ConfigMap>();
    const forbidden = statusError(403, 'Forbidden');
    refused.failNext('watch', forbidden);
    refused.failNext('list', forbidden);
    factory.informerFor(good, { description: 'good' });
    factory.informerFor(refused, { description: 'refused' });
    factory.start(new AbortController().signal);
    const controller = new AbortController();
    const waiting = factory.waitForSync(controller.signal);
    await settle();
    controller.abort();
    const error = await waiting.catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'ERR_RUNTIME_NOT_SYNCED', resource: 'refused' });
    expect(((error as Error).cause as Error).cause).toBe(forbidden);
  });

  it('stop() stops every informer; health() reports each', async () => {
    const { factory } = factoryOf();
    const source = new MemorySource<ConfigMap>({ descriptor: configMapsResource });
    source.create(configMap('a', 'one'));
    const refused = new MemorySource<ConfigMap>();
    refused.failNext('watch', statusError(403, 'Forbidden'));
    refused.failNext('list', statusError(403, 'Forbidden'));
    const inA = factory.informerFor(source.inNamespace('a'));
    const other = factory.informerFor(refused, { description: 'refused' });
    factory.start(new AbortController().signal);
    await inA.waitForSync();
    await settle();
    expect(factory.health()).toEqual([
      expect.objectContaining({
        resource: 'configmaps in namespace a',
        synced: true,
        ready: true,
        failures: 0,
      }),
      expect.objectContaining({
        resource: 'refused',
        synced: false,
        ready: false,
        failures: 1,
        state: 'backoff',
      }),
    ]);
    await factory.stop();
    expect(inA.running).toBe(false);
    expect(other.running).toBe(false);
    expect(source.openWatches).toBe(0);
    expect(factory.health().map((health) => [health.state, health.ready])).toEqual([
      ['stopped', false],
      ['stopped', false],
    ]);
  });

  it('does not start an informer made after stop()', async () => {
    const { factory } = factoryOf();
    const source = new MemorySource<ConfigMap>({ descriptor: configMapsResource });
    factory.informerFor(source.inNamespace('a'));
    factory.start(new AbortController().signal);
    await factory.stop();
    const late = factory.informerFor(source.inNamespace('late'));
    await settle();
    expect(late.running).toBe(false);
    expect(source.openWatches).toBe(0);
    // start() again starts them all.
    factory.start(new AbortController().signal);
    expect(late.running).toBe(true);
  });

  it('stops every informer when the signal given to start() aborts', async () => {
    const { factory } = factoryOf();
    const source = new MemorySource<KubernetesObject>({ descriptor: configMapsResource });
    const controller = new AbortController();
    const informer = factory.informerFor(source);
    factory.start(controller.signal);
    await factory.waitForSync();
    await settle();
    expect(source.openWatches).toBe(1);
    controller.abort();
    await settle();
    expect(informer.running).toBe(false);
    expect(source.openWatches).toBe(0);
  });
});
