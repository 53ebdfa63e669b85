import type { Clientset, KubernetesObject } from '@k/clientset';
import type { Deployment } from '@k/clientset/apps/v1';
import type { ConfigMap, Namespace, Secret } from '@k/clientset/core/v1';
import { describe, expectTypeOf, it } from 'vitest';
import type { Informer } from '../informer/informer.js';
import type { Manager } from '../manager/manager.js';
import { withFinalizer } from '../finalizers/with-finalizer.js';
import type { Controller, ReconcileContext } from './controller.js';

declare const manager: Manager;
declare const cs: Clientset;
declare const secrets: Informer<Secret>;

describe('ControllerBuilder types', () => {
  it("types the reconciler's object and client after for()", () => {
    const configMaps = cs.coreV1.configMaps('');
    const controller = manager
      .controller('mirror')
      .for(configMaps, { labelSelector: { mirror: 'true' } })
      .complete((object, context) => {
        expectTypeOf(object).toEqualTypeOf<ConfigMap>();
        expectTypeOf(context.client).toEqualTypeOf(configMaps);
        expectTypeOf(context).toExtend<ReconcileContext<ConfigMap, typeof configMaps>>();
      });
    expectTypeOf(controller).toEqualTypeOf<Controller<ConfigMap, typeof configMaps>>();
  });

  it('types cluster-scoped kinds the same way', () => {
    manager
      .controller('namespaces')
      .for(cs.coreV1.namespaces())
      .complete((object, { request }) => {
        expectTypeOf(object).toEqualTypeOf<Namespace>();
        expectTypeOf(request.namespace).toEqualTypeOf<string>();
      });
  });

  it('checks a watches() map against its source, and owns() against Kubernetes objects', () => {
    const builder = manager.controller('apps').for(cs.appsV1.deployments(''));
    builder.watches(secrets, (secret) => {
      expectTypeOf(secret).toEqualTypeOf<Secret>();
      return [{ namespace: secret.metadata?.namespace ?? '', name: 'app' }];
    });
    // @ts-expect-error a map of ConfigMaps cannot watch Secrets
    builder.watches(secrets, (configMap: ConfigMap & { data: Record<string, string> }) => [
      { namespace: '', name: configMap.data.name ?? '' },
    ]);
    // @ts-expect-error a map must return requests
    builder.watches(secrets, (secret) => [secret]);
    const deploymentPredicate = {
      create: (deployment: Deployment & { spec: { paused: true } }) => !!deployment,
    };
    // @ts-expect-error predicates of owns() get the owned kind
    builder.owns(cs.coreV1.configMaps(''), { predicates: [deploymentPredicate] });
    const numbers = {
      list: () => Promise.resolve({ items: [1] }),
      watch: () => Promise.resolve(undefined),
    };
    // @ts-expect-error owns() takes a source of Kubernetes objects
    builder.owns(numbers);
  });

  it('rejects a reconciler of another kind', () => {
    const builder = manager.controller('apps').for(cs.appsV1.deployments(''));
    // @ts-expect-error the reconciler gets Deployments
    builder.complete((configMap: ConfigMap & { data: object }) => void configMap);
  });

  it('types withFinalizer from the for() kind, and needs a client that can patch', () => {
    manager
      .controller('finalized')
      .for(cs.coreV1.configMaps(''))
      .complete(
        withFinalizer('example.com/cleanup', {
          apply: (object) => {
            expectTypeOf(object).toEqualTypeOf<ConfigMap>();
          },
          cleanup: async (object, { client }) => {
            expectTypeOf(object).toEqualTypeOf<ConfigMap>();
            await client.delete('copy');
          },
        }),
      );
    const watchOnly = {
      list: () =>
        Promise.resolve({
          apiVersion: 'v1',
          kind: 'List',
          metadata: {},
          items: [] as KubernetesObject[],
        }),
      watch: () => Promise.reject(new Error('unused')),
    };
    manager
      .controller('unpatchable')
      .for(watchOnly)
      // @ts-expect-error a client without get and patch cannot hold a finalizer
      .complete(withFinalizer('example.com/cleanup', { apply: () => {}, cleanup: () => {} }));
  });
});
