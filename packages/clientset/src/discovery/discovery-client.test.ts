import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientsetError } from '../errors.js';
import { startDiscoveryServer as discoveryServer } from '../__fixtures__/discovery-server.js';
import {
  json,
  startRecordingServer,
  type RecordingServer,
} from '../__fixtures__/recording-server.js';
import { cacheFileName, DiskDiscoveryCache } from './disk-discovery-cache.js';
import { MemoryDiscoveryCache } from './memory-discovery-cache.js';
import { AGGREGATED_DISCOVERY_ACCEPT, DiscoveryClient } from './discovery-client.js';
import { findByKind, findByName, RestMapper } from './rest-mapper.js';

let server: RecordingServer | undefined;
const temporary: string[] = [];

afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const directory of temporary.splice(0))
    await rm(directory, { recursive: true, force: true });
});

// A fake server answers discovery in either form (aggregated or legacy) and counts requests, so
// the fallback and the caches can be seen; e2e/ runs discovery against the real server.
describe('DiscoveryClient (fake discovery server)', () => {
  it('reads aggregated discovery in two requests, with verbs, scope and subresources', async () => {
    server = await discoveryServer('aggregated');
    const discovery = new DiscoveryClient(server.client);
    const resources = await discovery.serverResources();
    expect(server.requests.map((request) => request.url).sort()).toEqual(['/api', '/apis']);
    expect(server.requests[0]?.headers.accept).toBe(AGGREGATED_DISCOVERY_ACCEPT);
    expect(resources.aggregated).toBe(true);
    const deployments = resources.resources.find((resource) => resource.plural === 'deployments');
    expect(deployments).toMatchObject({
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
      namespaced: true,
      shortNames: ['deploy'],
      subresources: { scale: ['get', 'patch', 'update'], status: ['get', 'patch', 'update'] },
    });
    const namespaces = resources.resources.find((resource) => resource.plural === 'namespaces');
    expect(namespaces?.verbs).not.toContain('deletecollection');
    expect(resources.groups.find((group) => group.name === 'autoscaling')).toEqual({
      name: 'autoscaling',
      versions: ['v2', 'v1'],
      preferredVersion: 'v2',
    });
    // Cached: a second call sends nothing.
    await discovery.serverResources();
    expect(server.requests).toHaveLength(2);
  });

  it('falls back to legacy discovery and names the group versions that failed', async () => {
    server = await discoveryServer('legacy');
    const resources = await new DiscoveryClient(server.client).serverResources();
    expect(resources.aggregated).toBe(false);
    expect(resources.failedGroupVersions).toEqual(['metrics.k8s.io/v1beta1']);
    expect(resources.resources.find((resource) => resource.plural === 'pods')).toMatchObject({
      group: '',
      version: 'v1',
      kind: 'Pod',
      subresources: { log: ['get'], status: ['get', 'patch', 'update'] },
    });
    expect(
      resources.resources.find((resource) => resource.plural === 'deployments')?.subresources,
    ).toEqual({
      scale: ['get', 'patch', 'update'],
      status: ['get', 'patch', 'update'],
    });
  });

  it('shares one fetch between concurrent callers and fetches again after invalidate', async () => {
    server = await discoveryServer('aggregated');
    const discovery = new DiscoveryClient(server.client, { cache: new MemoryDiscoveryCache() });
    await Promise.all([
      discovery.serverResources(),
      discovery.serverResources(),
      discovery.serverGroups(),
    ]);
    expect(server.requests).toHaveLength(2);
    await discovery.invalidate();
    expect(await discovery.resourcesFor('apps', 'v1')).toHaveLength(5);
    expect(server.requests).toHaveLength(4);
    expect((await discovery.serverVersion()).gitVersion).toBe('v1.37.2');
  });

  it('fails with ERR_CLIENTSET_DISCOVERY when discovery itself fails', async () => {
    server = await startRecordingServer((_request, response) =>
      json(response, 403, {
        kind: 'Status',
        status: 'Failure',
        code: 403,
        reason: 'Forbidden',
        message: 'no',
      }),
    );
    await expect(new DiscoveryClient(server.client).serverResources()).rejects.toSatisfy(
      (error) => ClientsetError.isInstance(error) && error.code === 'ERR_CLIENTSET_DISCOVERY',
    );
  });
});

describe('DiskDiscoveryCache', () => {
  it('survives the process: a new client reads the file instead of the server', async () => {
    server = await discoveryServer('aggregated');
    const directory = await mkdtemp(join(tmpdir(), 'k-discovery-'));
    temporary.push(directory);
    await new DiscoveryClient(server.client, {
      cache: new DiskDiscoveryCache({ directory }),
    }).serverResources();
    const files = await readdir(directory);
    expect(files).toEqual([cacheFileName(server.url)]);
    expect((await stat(join(directory, files[0]!))).mode & 0o777).toBe(0o600);
    const second = new DiscoveryClient(server.client, {
      cache: new DiskDiscoveryCache({ directory }),
    });
    expect((await second.serverResources()).resources.length).toBeGreaterThan(50);
    expect(server.requests).toHaveLength(2);
  });

  it('ignores expired and corrupt files, and delete removes the file', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'k-discovery-'));
    temporary.push(directory);
    let now = 1_000;
    const resources = { groups: [], resources: [], aggregated: true, failedGroupVersions: [] };
    await new DiskDiscoveryCache({ directory, ttlMs: 100, now: () => now }).set(
      'https://h:1',
      resources,
    );
    expect(
      await new DiskDiscoveryCache({ directory, ttlMs: 100, now: () => now }).get('https://h:1'),
    ).toEqual(resources);
    now += 100;
    expect(
      await new DiskDiscoveryCache({ directory, ttlMs: 100, now: () => now }).get('https://h:1'),
    ).toBeUndefined();
    await writeFile(join(directory, cacheFileName('https://h:2')), '{ not json');
    expect(await new DiskDiscoveryCache({ directory }).get('https://h:2')).toBeUndefined();
    await new DiskDiscoveryCache({ directory }).delete('https://h:1');
    expect(await readdir(directory)).toEqual([cacheFileName('https://h:2')]);
  });
});

describe('RestMapper (fake discovery server)', () => {
  it('maps kinds to resources (preferred version when none is given) and names to kinds', async () => {
    server = await discoveryServer('aggregated');
    const discovery = new DiscoveryClient(server.client);
    const resources = await discovery.serverResources();
    expect(
      findByKind(resources, { group: 'apps', version: 'v1', kind: 'Deployment' })?.plural,
    ).toBe('deployments');
    expect(
      findByKind(resources, { group: 'autoscaling', kind: 'HorizontalPodAutoscaler' })?.version,
    ).toBe('v2');
    expect(findByKind(resources, { group: '', version: 'v1', kind: 'Scale' })).toBeUndefined();
    expect(findByName(resources, 'deploy')?.kind).toBe('Deployment');
    expect(findByName(resources, 'Deployment')?.plural).toBe('deployments');
    expect(findByName(resources, 'deployments.apps')?.group).toBe('apps');
    expect(findByName(resources, 'horizontalpodautoscalers.v1.autoscaling')?.version).toBe('v1');
    expect(findByName(resources, 'events')?.group).toBe('');
    expect(findByName(resources, 'events.events.k8s.io')?.group).toBe('events.k8s.io');
    const mapper = new RestMapper(discovery);
    expect((await mapper.mappingFor('v1', 'ConfigMap')).plural).toBe('configmaps');
    expect(await mapper.kindFor('cm')).toEqual({ group: '', version: 'v1', kind: 'ConfigMap' });
    expect((await mapper.resourceForName('deploy')).plural).toBe('deployments');
  });

  it('rediscovers once on a miss, then fails with ERR_CLIENTSET_NO_MAPPING', async () => {
    server = await discoveryServer('aggregated');
    const mapper = new RestMapper(new DiscoveryClient(server.client));
    await expect(mapper.mappingFor('example.com/v1', 'Widget')).rejects.toMatchObject({
      code: 'ERR_CLIENTSET_NO_MAPPING',
      message: 'no matches for kind "Widget" in version "example.com/v1"',
    });
    expect(server.requests).toHaveLength(4);
    await expect(mapper.kindFor('nothing')).rejects.toMatchObject({
      message: `the server doesn't have a resource type "nothing"`,
    });
  });
});
