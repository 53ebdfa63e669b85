import 'reflect-metadata';
import { container as rootContainer } from 'tsyringe';
import { afterEach, describe, expect, it } from 'vitest';
import { testResolvedConfig } from '@k/config/testing';
import { caught } from '@k/test-utils';
import { parseManifests } from './apply/apply-manifests.js';
import { Clientset } from './clientset.js';
import type { ResolvedConfig } from '@k/config';
import { createClientset, inferClientset } from './create-clientset.js';
import { DiskDiscoveryCache } from './discovery/disk-discovery-cache.js';
import { MemoryDiscoveryCache } from './discovery/memory-discovery-cache.js';
import { DiscoveryClient } from './discovery/discovery-client.js';
import { RestMapper } from './discovery/rest-mapper.js';
import { DynamicClient } from './dynamic/dynamic-client.js';
import { ClientsetError } from './errors.js';
import { applyManifests } from './apply/apply-manifests.js';
import { registerClientset } from './register.js';
import { startRecordingServer, type RecordingServer } from './__fixtures__/recording-server.js';

const config: ResolvedConfig = testResolvedConfig('http://127.0.0.1:1', {
  disableCompression: true,
});

let server: RecordingServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Plain is any value as plain JavaScript passes it: the types do not apply. */
type Plain = never;

const MANIFEST = 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: c }\n';

interface Parts {
  clientset: Clientset;
  dynamic: DynamicClient;
  discovery: DiscoveryClient;
  mapper: RestMapper;
}

// The public entry points besides the resource clients (resource-client.test.ts), called as
// plain JavaScript may call them. The recording fake server shows that nothing is sent.
const calls: [string, (parts: Parts) => unknown, RegExp, string?][] = [
  [
    'cs.applyManifests(text) without options',
    ({ clientset }) => clientset.applyManifests(MANIFEST, undefined as Plain),
    /^applyManifests: options must be an object with fieldManager, got undefined$/,
  ],
  [
    'cs.applyManifests(text, {}) without fieldManager',
    ({ clientset }) => clientset.applyManifests(MANIFEST, {} as Plain),
    /^applyManifests: options.fieldManager must be a non-empty string, got undefined$/,
  ],
  [
    'cs.applyManifests() without text',
    ({ clientset }) => clientset.applyManifests(undefined as Plain, { fieldManager: 'm' }),
    /^applyManifests: text must be a string of YAML or JSON manifests, got undefined$/,
  ],
  [
    'cs.applyManifests() with a numeric namespace',
    ({ clientset }) =>
      clientset.applyManifests(MANIFEST, { fieldManager: 'm', namespace: 5 as Plain }),
    /^applyManifests: options.namespace must be a string, got a number$/,
  ],
  [
    'applyManifests(text, options) without the dynamic client',
    () => applyManifests(MANIFEST as Plain, { fieldManager: 'm' } as Plain, undefined as Plain),
    /^applyManifests: dynamic must be a DynamicClient with a REST mapper, got a string$/,
  ],
  [
    'parseManifests() without text',
    () => parseManifests(undefined as Plain),
    /^parseManifests: text must be a string of YAML or JSON manifests, got undefined$/,
  ],
  [
    'dynamic.resource() without a resource',
    ({ dynamic }) => dynamic.resource(undefined as Plain),
    /^dynamic resource: resource must be \{ group, version, resource \} or a resource descriptor, got undefined$/,
  ],
  [
    'dynamic.resource() with a name instead of a resource',
    ({ dynamic }) => dynamic.resource('deployments' as Plain),
    /^dynamic resource: resource must be .*, got a string$/,
  ],
  [
    'dynamic.resource() without a version',
    ({ dynamic }) => dynamic.resource({ group: 'apps', resource: 'deployments' } as Plain),
    /^dynamic resource: resource must be /,
  ],
  [
    'dynamic.resource() with a numeric namespace',
    ({ dynamic }) =>
      dynamic.resource({ group: '', version: 'v1', resource: 'configmaps' }, 5 as Plain),
    /^dynamic resource: namespace must be a string, got a number$/,
  ],
  [
    'dynamic.forKind() without arguments',
    ({ dynamic }) => dynamic.forKind(undefined as Plain, undefined as Plain),
    /^dynamic forKind: apiVersion must be a non-empty string, got undefined$/,
  ],
  [
    'dynamic.forKind() without a kind',
    ({ dynamic }) => dynamic.forKind('v1', undefined as Plain),
    /^dynamic forKind: kind must be a non-empty string, got undefined$/,
  ],
  [
    'dynamic.forObject() without an object',
    ({ dynamic }) => dynamic.forObject(undefined as Plain),
    /^dynamic forObject: the object must be an object, got undefined$/,
    'ERR_CLIENTSET_INVALID_OBJECT',
  ],
  [
    'dynamic.forObject() with YAML text',
    ({ dynamic }) => dynamic.forObject(MANIFEST as Plain),
    /^dynamic forObject: the object must be an object, got a string$/,
    'ERR_CLIENTSET_INVALID_OBJECT',
  ],
  [
    'discovery.resourcesFor() without a group',
    ({ discovery }) => discovery.resourcesFor(undefined as Plain, 'v1'),
    /^discovery resourcesFor: group must be a string, got undefined$/,
  ],
  [
    'discovery.resourcesFor() without a version',
    ({ discovery }) => discovery.resourcesFor('apps', undefined as Plain),
    /^discovery resourcesFor: version must be a non-empty string, got undefined$/,
  ],
  [
    'mapper.resourceFor() without a query',
    ({ mapper }) => mapper.resourceFor(undefined as Plain),
    /^mapper resourceFor: query must be an object with group and kind, got undefined$/,
  ],
  [
    'mapper.resourceFor() with a kind as text',
    ({ mapper }) => mapper.resourceFor('Deployment' as Plain),
    /^mapper resourceFor: query must be an object with group and kind, got a string$/,
  ],
  [
    'mapper.resourceFor() without a kind',
    ({ mapper }) => mapper.resourceFor({ group: 'apps' } as Plain),
    /^mapper resourceFor: query.kind must be a non-empty string, got undefined$/,
  ],
  [
    'mapper.mappingFor() without arguments',
    ({ mapper }) => mapper.mappingFor(undefined as Plain, undefined as Plain),
    /^mapper mappingFor: apiVersion must be a non-empty string, got undefined$/,
  ],
  [
    'mapper.kindFor() without a name',
    ({ mapper }) => mapper.kindFor(undefined as Plain),
    /^mapper kindFor: name must be a non-empty string, got undefined$/,
  ],
];

describe('public entry points called from plain JavaScript (recording fake server)', () => {
  it.each(calls)(
    '%s: a typed error saying what to pass, nothing sent',
    async (_name, call, message, code = 'ERR_CLIENTSET_INVALID_ARGUMENT') => {
      server = await startRecordingServer();
      const clientset = new Clientset(server.client);
      const parts = {
        clientset,
        dynamic: clientset.dynamic,
        discovery: clientset.discovery,
        mapper: clientset.mapper,
      };
      const error = await caught(() => call(parts));
      expect(ClientsetError.isInstance(error) && error.code).toBe(code);
      expect((error as Error).message).toMatch(message);
      expect(server.requests).toHaveLength(0);
    },
  );
});

// Construction and composition: nothing is loaded, read or sent before the arguments are checked.
const constructions: [string, () => unknown, RegExp][] = [
  [
    'new Clientset() without a RestClient',
    () => new Clientset(undefined as Plain),
    /^Clientset: rest must be a RestClient from @k\/rest, got undefined$/,
  ],
  [
    'new Clientset() with a config instead',
    () => new Clientset({ server: 'https://h' } as Plain),
    /^Clientset: rest must be a RestClient from @k\/rest, got an object$/,
  ],
  [
    'new DiscoveryClient() without a RestClient',
    () => new DiscoveryClient(undefined as Plain),
    /^DiscoveryClient: rest must be a RestClient from @k\/rest, got undefined$/,
  ],
  [
    'new RestMapper() without a DiscoveryClient',
    () => new RestMapper(undefined as Plain),
    /^RestMapper: discovery must be a DiscoveryClient, got undefined$/,
  ],
  [
    'new DynamicClient() without a RestClient',
    () => new DynamicClient(undefined as Plain),
    /^DynamicClient: rest must be a RestClient from @k\/rest, got undefined$/,
  ],
  [
    'new DiskDiscoveryCache() with a folder as a number',
    () => new DiskDiscoveryCache({ directory: 5 as Plain }),
    /^DiskDiscoveryCache: options.directory must be a non-empty string, got a number$/,
  ],
  [
    'new DiskDiscoveryCache() with a ttl as text',
    () => new DiskDiscoveryCache({ ttlMs: '1h' as Plain }),
    /^DiskDiscoveryCache: options.ttlMs must be a number of 0 or more, got a string$/,
  ],
  [
    'new MemoryDiscoveryCache() with a negative ttl',
    () => new MemoryDiscoveryCache({ ttlMs: -1 }),
    /^MemoryDiscoveryCache: options.ttlMs must be a number of 0 or more/,
  ],
  [
    'registerClientset() without a container',
    () => registerClientset(undefined as Plain),
    /^registerClientset: container must be a tsyringe DependencyContainer, got undefined$/,
  ],
  [
    'registerClientset() with a cache that is not one',
    () =>
      registerClientset(rootContainer.createChildContainer(), {
        discoveryCache: '/tmp/cache' as Plain,
      }),
    /^registerClientset: options.discoveryCache must be a DiscoveryCache or \{ directory, ttlMs \}, got a string$/,
  ],
  [
    'createClientset() with a kubeconfig path instead of a config',
    () => createClientset('/root/.kube/config' as Plain),
    /^createClientset: config must be a ResolvedConfig from @k\/config \(resolveConfig, inferConfig\), got a string$/,
  ],
  [
    'createClientset() with options that are text',
    () => createClientset(config, 'fast' as Plain),
    /^createClientset: options must be an object, got a string$/,
  ],
  [
    'createClientset() with a discovery cache folder as text',
    () => createClientset(config, { discoveryCache: '/tmp/cache' as Plain }),
    /^createClientset: options.discoveryCache must be a DiscoveryCache or \{ directory, ttlMs \}, got a string$/,
  ],
  [
    'createClientset() with a throttle that is a number',
    () => createClientset(config, { throttle: 5 as Plain }),
    /^createClientset: options.throttle must be /,
  ],
  [
    'inferClientset() with a kubeconfig path instead of options',
    () => inferClientset('/root/.kube/config' as Plain),
    /^inferClientset: options must be an object, got a string$/,
  ],
  [
    'inferClientset() with a numeric kubeconfig',
    () => inferClientset({ kubeconfig: 5 as Plain }),
    /^inferClientset: options.kubeconfig must be a non-empty string, got a number$/,
  ],
  [
    'inferClientset() with a numeric context',
    () => inferClientset({ context: 5 as Plain }),
    /^inferClientset: options.context must be a non-empty string, got a number$/,
  ],
  [
    'inferClientset() with inCluster as text',
    () => inferClientset({ inCluster: 'yes' as Plain }),
    /^inferClientset: options.inCluster must be true or false, got a string$/,
  ],
  [
    'inferClientset() with overrides as text',
    () => inferClientset({ overrides: 'ns' as Plain }),
    /^inferClientset: options.overrides must be an object, got a string$/,
  ],
];

describe('constructors and composition called from plain JavaScript', () => {
  it.each(constructions)(
    '%s: ERR_CLIENTSET_INVALID_ARGUMENT before anything else',
    async (_name, call, message) => {
      const error = await caught(call);
      expect(ClientsetError.isInstance(error) && error.code).toBe('ERR_CLIENTSET_INVALID_ARGUMENT');
      expect((error as Error).message).toMatch(message);
    },
  );
});
