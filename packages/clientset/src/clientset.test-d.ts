/* eslint-disable @typescript-eslint/unbound-method -- type tests name methods without calling them */
import type { Readable } from 'node:stream';
import type { Watch, WatchEvent } from '@k/rest';
import { describe, expectTypeOf, it } from 'vitest';
import type { Widget, WidgetsClient } from '../e2e/generated/widget-v1.js';
import type { Clientset } from './clientset.js';
import type { Deployment, DeploymentList, DeploymentSpec } from './generated/apps/v1/index.js';
import type { Scale } from './generated/autoscaling/v1/index.js';
import type { ConfigMap, Container, Pod, ServicePort } from './generated/core/v1/index.js';
import type {
  IntOrString,
  MicroTime,
  ObjectMeta,
  Quantity,
  Time,
} from './generated/meta/v1/index.js';
import type { DeleteResult } from './resource/delete-result.js';
import type { ApplyConfiguration } from './resource/object-types.js';

declare const cs: Clientset;

describe('generated types', () => {
  it('types timestamps, quantities and int-or-strings as the JSON holds them', () => {
    expectTypeOf<Time>().toEqualTypeOf<string>();
    expectTypeOf<MicroTime>().toEqualTypeOf<string>();
    expectTypeOf<Quantity>().toEqualTypeOf<string>();
    expectTypeOf<IntOrString>().toEqualTypeOf<number | string>();
    expectTypeOf<ObjectMeta['creationTimestamp']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ServicePort['targetPort']>().toEqualTypeOf<number | string | undefined>();
    expectTypeOf<NonNullable<Container['resources']>['limits']>().toEqualTypeOf<
      { [key: string]: string } | undefined
    >();
  });

  it('keeps required fields required and literal apiVersion and kind', () => {
    expectTypeOf<Deployment['spec']>().toEqualTypeOf<DeploymentSpec>();
    expectTypeOf<Deployment['status']>().not.toBeNever();
    expectTypeOf<Container['name']>().toEqualTypeOf<string>();
    expectTypeOf<Container['image']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Deployment['apiVersion']>().toEqualTypeOf<'apps/v1' | undefined>();
    expectTypeOf<Pod['kind']>().toEqualTypeOf<'Pod' | undefined>();
    expectTypeOf<Container['imagePullPolicy']>().toEqualTypeOf<
      'Always' | 'IfNotPresent' | 'Never' | undefined
    >();
  });

  it('makes apply configurations deep partial with apiVersion, kind and name required', () => {
    expectTypeOf<{
      apiVersion: 'apps/v1';
      kind: 'Deployment';
      metadata: { name: string };
      spec: { replicas: number };
    }>().toMatchTypeOf<ApplyConfiguration<Deployment>>();
    expectTypeOf<{
      apiVersion: 'apps/v1';
      kind: 'Deployment';
      metadata: { labels: Record<string, never> };
    }>().not.toMatchTypeOf<ApplyConfiguration<Deployment>>();
    expectTypeOf<{ kind: 'Deployment'; metadata: { name: string } }>().not.toMatchTypeOf<
      ApplyConfiguration<Deployment>
    >();
  });
});

describe('typed client signatures', () => {
  it('has exactly the verbs discovery lists', () => {
    expectTypeOf(cs.coreV1.configMaps('ns')).toHaveProperty('deleteCollection');
    expectTypeOf(cs.coreV1.namespaces()).not.toHaveProperty('deleteCollection');
    expectTypeOf(cs.coreV1.namespaces()).toHaveProperty('getStatus');
    expectTypeOf(cs.coreV1.configMaps('ns')).not.toHaveProperty('getStatus');
    expectTypeOf(cs.authenticationV1.tokenReviews()).toHaveProperty('create');
    expectTypeOf(cs.authenticationV1.tokenReviews()).not.toHaveProperty('get');
    expectTypeOf(cs.authenticationV1.tokenReviews()).not.toHaveProperty('apply');
    expectTypeOf(cs.coreV1.componentStatuses()).not.toHaveProperty('create');
  });

  it('has status, scale and logs where the subresources exist', () => {
    const deployments = cs.appsV1.deployments('ns');
    expectTypeOf(deployments.getScale).returns.resolves.toEqualTypeOf<Scale>();
    expectTypeOf(deployments.updateStatus).parameter(0).toEqualTypeOf<Deployment>();
    expectTypeOf(cs.coreV1.pods('ns').logs).returns.resolves.toEqualTypeOf<Readable>();
    expectTypeOf(cs.coreV1.configMaps('ns')).not.toHaveProperty('logs');
    expectTypeOf(cs.coreV1.configMaps('ns')).not.toHaveProperty('getScale');
    expectTypeOf(cs.batchV1.jobs('ns')).not.toHaveProperty('getScale');
  });

  it('types reads, lists, watches and deletes by the resource', () => {
    const deployments = cs.appsV1.deployments('ns');
    expectTypeOf(deployments.get).returns.resolves.toEqualTypeOf<Deployment>();
    expectTypeOf(deployments.list).returns.resolves.toEqualTypeOf<DeploymentList>();
    expectTypeOf(deployments.listAll).returns.resolves.toEqualTypeOf<DeploymentList>();
    expectTypeOf(deployments.watch).returns.resolves.toEqualTypeOf<Watch<Deployment>>();
    expectTypeOf<WatchEvent<ConfigMap>['object']>().toEqualTypeOf<ConfigMap>();
    expectTypeOf(deployments.delete).returns.resolves.toEqualTypeOf<DeleteResult<Deployment>>();
    expectTypeOf(cs.coreV1.namespaces).parameters.toEqualTypeOf<[]>();
    expectTypeOf(cs.coreV1.pods).parameters.toEqualTypeOf<[namespace?: string]>();
  });

  it('types the patch body by its patch type', () => {
    const configMaps = cs.coreV1.configMaps('ns');
    expectTypeOf(configMaps.patch<'merge'>)
      .parameter(2)
      .toMatchTypeOf<{ data?: unknown }>();
    void configMaps.patch('c', 'json', [{ op: 'remove', path: '/data/a' }]);
    void configMaps.patch('c', 'merge', { data: { a: null } });
    void configMaps.patch('c', 'strategic-merge', { metadata: { $patch: 'replace' } });
    // @ts-expect-error: a JSON patch is a list of operations
    void configMaps.patch('c', 'json', { data: {} });
    // @ts-expect-error: there is no such patch type
    void configMaps.patch('c', 'yaml', {});
    // @ts-expect-error: apply needs a field manager
    void configMaps.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }, {});
  });

  it('types a k-gen crd client from the CRD schema', () => {
    expectTypeOf<Widget['spec']['color']>().toEqualTypeOf<'red' | 'green' | 'blue'>();
    expectTypeOf<Widget['spec']['port']>().toEqualTypeOf<number | string | undefined>();
    expectTypeOf<Widget['apiVersion']>().toEqualTypeOf<'k-clientset.test/v1' | undefined>();
    expectTypeOf<WidgetsClient>().toHaveProperty('getStatus');
    expectTypeOf<WidgetsClient>().toHaveProperty('getScale');
    expectTypeOf<WidgetsClient>().not.toHaveProperty('logs');
    expectTypeOf<WidgetsClient['get']>().returns.resolves.toEqualTypeOf<Widget>();
  });
});

describe('inNamespace', () => {
  it('scopes a namespaced client to a namespace, and is not there for a cluster-scoped one', () => {
    expectTypeOf(cs.coreV1.configMaps('').inNamespace('a')).toEqualTypeOf(
      cs.coreV1.configMaps('a'),
    );
    expectTypeOf(cs.coreV1.namespaces()).not.toHaveProperty('inNamespace');
  });
});
