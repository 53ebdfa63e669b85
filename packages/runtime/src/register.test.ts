import 'reflect-metadata';
import { testResolvedConfig } from '@k/config/testing';
import { CLIENTSET } from '@k/clientset/di';
import type { TokenBucket } from '@k/rest/throttle';
import { TRANSPORT } from '@k/transport/di';
import { container as rootContainer } from 'tsyringe';
import { describe, expect, it } from 'vitest';
import * as di from './di.js';
import { EventRecorder } from './events/event-recorder.js';
import { InformerFactory } from './informer/informer-factory.js';
import type { Logger } from './logger.js';
import { Manager } from './manager/manager.js';
import { registerRuntime } from './register.js';
import * as tokens from './tokens.js';
import { BucketRateLimiter } from './workqueue/rate-limiters.js';

// Wiring only: nothing here talks to a server (the address is never dialled).
const config = testResolvedConfig('http://127.0.0.1:1');

function fresh() {
  return rootContainer.createChildContainer();
}

describe('registerRuntime', () => {
  it('resolves every exported token from a fresh container, each made once', () => {
    const container = registerRuntime(fresh(), { name: 'widgets', clientset: { config } });
    container.register(tokens.CONTROLLER_SETUP, { useValue: () => {} });
    const exported = Object.entries(tokens);
    expect(exported.map(([name]) => name).sort()).toEqual([
      'CONTROLLER_SETUP',
      'EVENT_RECORDER',
      'INFORMER_FACTORY',
      'LEASE_CLIENT',
      'MANAGER',
      'METRICS_SINK',
      'RATE_LIMITER_FACTORY',
      'RUNTIME_LOGGER',
    ]);
    for (const [name, token] of exported) {
      expect(container.resolve(token as symbol), name).toBeDefined();
      expect(di[name as keyof typeof di], `${name} is exported from @k/runtime/di`).toBe(token);
    }
    const manager = container.resolve(tokens.MANAGER);
    expect(manager).toBeInstanceOf(Manager);
    expect(container.resolve(tokens.MANAGER)).toBe(manager);
    expect(container.resolve(tokens.INFORMER_FACTORY)).toBe(manager.informers);
    expect(container.resolve(tokens.INFORMER_FACTORY)).toBeInstanceOf(InformerFactory);
    expect(container.resolve(tokens.EVENT_RECORDER)).toBeInstanceOf(EventRecorder);
    expect(manager.elector).toBeUndefined();
  });

  it('runs every CONTROLLER_SETUP with the Manager, whose controllers get the container parts', () => {
    const container = registerRuntime(fresh(), { name: 'widgets', clientset: { config } });
    const lines: string[] = [];
    const logger: Logger = {
      debug: () => {},
      info: (message) => void lines.push(message),
      warn: () => {},
      error: () => {},
    };
    let limiters = 0;
    container.register(tokens.RUNTIME_LOGGER, { useValue: logger });
    container.register(tokens.RATE_LIMITER_FACTORY, {
      useValue: () => {
        limiters += 1;
        return new BucketRateLimiter<string>(1, 1);
      },
    });
    const built: string[] = [];
    for (const name of ['a', 'b']) {
      container.register(tokens.CONTROLLER_SETUP, {
        useValue: (manager: Manager) => {
          const cs = container.resolve(CLIENTSET);
          const configMaps = manager.informerFor(cs.coreV1.configMaps('ns'));
          const controller = manager
            .controller(name)
            .for(configMaps)
            .complete(() => {});
          built.push(controller.name);
        },
      });
    }
    const manager = container.resolve(tokens.MANAGER);
    expect(built).toEqual(['a', 'b']);
    expect(limiters).toBe(2); // one rate limiter per controller
    expect(manager.logger).toBe(logger);
    expect(manager.informers.informers).toHaveLength(1); // one shared informer for both
  });

  it('turns on leader election with the Lease named after the operator, in its namespace', () => {
    const container = registerRuntime(fresh(), {
      name: 'widgets',
      clientset: { config },
      leaderElection: { namespace: 'operators', identity: 'replica-1' },
    });
    const manager = container.resolve(tokens.MANAGER);
    expect(manager.elector?.name).toBe('widgets');
    expect(container.resolve(tokens.LEASE_CLIENT)).toMatchObject({
      namespace: 'operators',
      descriptor: { plural: 'leases' },
    });
  });

  it('closes the recorder, then the clientset, when the Manager stops', async () => {
    const container = registerRuntime(fresh(), {
      name: 'widgets',
      clientset: { config },
      manager: { probes: false, metricsServer: false },
    });
    const manager = container.resolve(tokens.MANAGER);
    const recorder = container.resolve(tokens.EVENT_RECORDER);
    const stop = new AbortController();
    const done = manager.start(stop.signal);
    stop.abort();
    await done;
    expect(container.resolve(TRANSPORT).closed).toBe(true);
    recorder.normal({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, 'A', 'b');
    expect(recorder.stats().dropped).toBe(1); // closed
  });

  it('paces the clientset at 20/30 when the clientset options say throttle: undefined, else at theirs', async () => {
    const paces: number[][] = [];
    for (const throttle of [undefined, { qps: 1, burst: 2 }]) {
      const container = registerRuntime(fresh(), {
        name: 'widgets',
        clientset: { config, throttle },
      });
      const clientset = container.resolve(CLIENTSET);
      const bucket = clientset.rest.throttle as TokenBucket;
      paces.push([bucket.qps, bucket.burst]);
      await clientset.close();
    }
    expect(paces).toEqual([
      [20, 30],
      [1, 2],
    ]);
  });

  it('needs a name, and refuses to register twice in one container', () => {
    expect(() => registerRuntime(fresh(), {} as never)).toThrow(/needs a name/);
    const container = registerRuntime(fresh(), { name: 'widgets', clientset: { config } });
    expect(() => registerRuntime(container, { name: 'widgets' })).toThrow(/already registered/);
  });
});
