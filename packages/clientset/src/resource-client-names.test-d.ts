import { describe, expectTypeOf, it } from 'vitest';
import type { WidgetsClient } from '../e2e/generated/widget-v1.js';
import type { Clientset } from './clientset.js';
import type { AppsV1Client, DeploymentsClient } from './generated/apps/v1/index.js';
import type {
  ConfigMapsClient,
  CoreV1Client,
  EndpointsClient,
  EventsClient,
  NamespacesClient,
  PodsClient,
} from './generated/core/v1/index.js';
import type { EventsClient as EventsV1EventsClient } from './generated/events/v1/index.js';
import type { NetworkPoliciesClient } from './generated/networking/v1/index.js';
import type { CSIDriversClient, StorageV1Client } from './generated/storage/v1/index.js';

declare const cs: Clientset;

// Each built-in resource client has a name, exported beside its group client, by k-gen crd's
// rule (the kind's plural in the kind's casing, then `Client`), so users write `PodsClient`
// instead of `ReturnType<CoreV1Client['pods']>`.
describe('the names of the built-in resource clients', () => {
  it('are what the group clients return', () => {
    expectTypeOf<ReturnType<CoreV1Client['namespaces']>>().toEqualTypeOf<NamespacesClient>();
    expectTypeOf<ReturnType<CoreV1Client['pods']>>().toEqualTypeOf<PodsClient>();
    expectTypeOf<ReturnType<CoreV1Client['configMaps']>>().toEqualTypeOf<ConfigMapsClient>();
    expectTypeOf<ReturnType<CoreV1Client['endpoints']>>().toEqualTypeOf<EndpointsClient>();
    expectTypeOf<ReturnType<AppsV1Client['deployments']>>().toEqualTypeOf<DeploymentsClient>();
    expectTypeOf<ReturnType<StorageV1Client['csiDrivers']>>().toEqualTypeOf<CSIDriversClient>();
    expectTypeOf(cs.coreV1.pods('web')).toEqualTypeOf<PodsClient>();
    expectTypeOf(cs.networkingV1.networkPolicies()).toEqualTypeOf<NetworkPoliciesClient>();
  });

  it('type parameters and fields of users', () => {
    // What an author writes to hand a client around.
    const podNames = async (pods: PodsClient): Promise<string[]> =>
      (await pods.list()).items.map((pod) => pod.metadata?.name ?? '');
    expectTypeOf(podNames(cs.coreV1.pods())).resolves.toEqualTypeOf<string[]>();
    const holder: { namespaces: NamespacesClient } = { namespaces: cs.coreV1.namespaces() };
    expectTypeOf(holder.namespaces).toHaveProperty('getStatus');
    expectTypeOf<NamespacesClient>().not.toHaveProperty('inNamespace'); // cluster-scoped
    expectTypeOf<PodsClient>().toHaveProperty('inNamespace');
  });

  it('name each group version its own client (core/v1 and events.k8s.io/v1 Events differ)', () => {
    expectTypeOf<EventsClient>().not.toEqualTypeOf<EventsV1EventsClient>();
    expectTypeOf(cs.eventsV1.events('ns')).toEqualTypeOf<EventsV1EventsClient>();
  });

  it('follow the rule of k-gen crd clients (`widgets` of kind Widget: WidgetsClient)', () => {
    expectTypeOf<WidgetsClient>().toHaveProperty('getStatus');
    expectTypeOf<WidgetsClient>().not.toEqualTypeOf<ConfigMapsClient>();
  });
});
