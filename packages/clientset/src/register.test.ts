import 'reflect-metadata';
import type { ResolvedConfig } from '@k/config';
import { RestConfigurationError } from '@k/rest';
import { TokenBucket } from '@k/rest/throttle';
import * as restTokens from '@k/rest/di';
import type { CredentialProviderFactory } from '@k/transport';
import { CREDENTIAL_PROVIDER_FACTORY, RESOLVED_CONFIG, TRANSPORT } from '@k/transport/di';
import { container as rootContainer } from 'tsyringe';
import { testResolvedConfig } from '@k/config/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { Clientset } from './clientset.js';
import { createClientset } from './create-clientset.js';
import * as di from './di.js';
import { DiskDiscoveryCache } from './discovery/disk-discovery-cache.js';
import { registerClientset } from './register.js';
import * as tokens from './tokens.js';
import {
  json,
  startRecordingServer,
  type RecordingServer,
} from './__fixtures__/recording-server.js';

let server: RecordingServer | undefined;
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  await server?.close();
  server = undefined;
});

function resolvedConfig(url: string): ResolvedConfig {
  return testResolvedConfig(url, { disableCompression: true });
}

async function echoServer(): Promise<RecordingServer> {
  return startRecordingServer((request, response) =>
    json(response, 200, {
      kind: 'ConfigMap',
      metadata: { name: 'echo' },
      data: { authorization: request.headers.authorization ?? '' },
    }),
  );
}

const plugin: CredentialProviderFactory = {
  kind: 'test-plugin',
  create: () => ({
    kind: 'test-plugin',
    getCredentials: () => Promise.resolve({ authorization: 'Bearer from-plugin' }),
  }),
};

function pluginUser(url: string): ResolvedConfig {
  return {
    ...resolvedConfig(url),
    auth: { kind: 'auth-provider', name: 'test-plugin', config: new Map(), userName: 'test' },
  };
}

describe('registerClientset (recording fake server)', () => {
  it('registers every layer and resolves every exported token from a fresh container', async () => {
    server = await echoServer();
    const container = registerClientset(rootContainer.createChildContainer(), {
      config: resolvedConfig(server.url),
    });
    const exported = Object.entries(tokens);
    expect(exported.map(([name]) => name).sort()).toEqual([
      'CLIENTSET',
      'DISCOVERY_CACHE',
      'DISCOVERY_CLIENT',
      'DYNAMIC_CLIENT',
      'REST_MAPPER',
    ]);
    for (const [name, token] of exported) {
      expect(container.resolve(token as symbol), name).toBeDefined();
      expect(di[name as keyof typeof di], `${name} is exported from @k/clientset/di`).toBe(token);
    }
    for (const token of [RESOLVED_CONFIG, TRANSPORT, ...Object.values(restTokens)]) {
      if (typeof token !== 'symbol') continue;
      expect(container.resolve(token)).toBeDefined();
    }
    const resolved = container.resolve(tokens.CLIENTSET);
    expect(resolved).toBeInstanceOf(Clientset);
    expect(container.resolve(tokens.CLIENTSET)).toBe(resolved);
    expect(resolved.discovery).toBe(container.resolve(tokens.DISCOVERY_CLIENT));
    expect(resolved.rest).toBe(container.resolve(restTokens.REST_CLIENT));
    expect((await resolved.coreV1.configMaps('ns').get('echo')).metadata?.name).toBe('echo');
    // The clientset closes the transport the container made.
    await resolved.close();
    expect(container.resolve(TRANSPORT).closed).toBe(true);
  });

  it('uses an auth plugin registered in a parent container', async () => {
    server = await echoServer();
    const parent = rootContainer.createChildContainer();
    parent.register(CREDENTIAL_PROVIDER_FACTORY, { useValue: plugin });
    const child = registerClientset(parent.createChildContainer(), {
      config: pluginUser(server.url),
    });
    const cs = child.resolve(tokens.CLIENTSET);
    closers.push(() => cs.close());
    const answer = await cs.coreV1.configMaps('ns').get('echo');
    expect(answer.data?.authorization).toBe('Bearer from-plugin');
  });

  it('keeps layers registered before it, and lets any token be replaced afterwards', async () => {
    server = await echoServer();
    const container = rootContainer.createChildContainer();
    const limiter = TokenBucket.unlimited();
    restTokens.registerRest(container, { throttle: limiter });
    registerClientset(container, { config: resolvedConfig(server.url) });
    const cs = container.resolve(tokens.CLIENTSET);
    closers.push(() => cs.close());
    expect(cs.rest.throttle).toBe(limiter);
  });

  it('refuses to register twice in one container', () => {
    const container = rootContainer.createChildContainer();
    registerClientset(container);
    expect(() => registerClientset(container)).toThrow(/already registered/);
  });
});

describe('createClientset (recording fake server)', () => {
  it('composes config → transport → rest → clientset synchronously and closes the transport', async () => {
    server = await echoServer();
    const cs = createClientset(resolvedConfig(server.url), {
      throttle: { qps: 50, burst: 100 },
    });
    const bucket = cs.rest.throttle as TokenBucket;
    expect([bucket.qps, bucket.burst]).toEqual([50, 100]);
    expect(cs.appsV1).toBe(cs.appsV1);
    expect((await cs.coreV1.configMaps('ns').get('echo')).metadata?.name).toBe('echo');
    await cs.close();
    await cs.close();
    await expect(cs.coreV1.configMaps('ns').get('echo')).rejects.toThrow();
  });

  it('takes a custom auth plugin through its transport options', async () => {
    server = await echoServer();
    const cs = createClientset(pluginUser(server.url), {
      transport: { credentialProviderFactories: [plugin] },
    });
    closers.push(() => cs.close());
    const answer = await cs.coreV1.configMaps('ns').get('echo');
    expect(answer.data?.authorization).toBe('Bearer from-plugin');
  });

  it("sends namespaced calls without a namespace to the context's namespace", async () => {
    server = await echoServer();
    const cs = createClientset({ ...resolvedConfig(server.url), namespace: 'team-a' });
    closers.push(() => cs.close());
    expect(cs.defaultNamespace).toBe('team-a');
    await cs.coreV1.configMaps().get('echo');
    expect(server.requests.at(-1)?.url).toBe('/api/v1/namespaces/team-a/configmaps/echo');
    await cs.coreV1.configMaps('').list();
    expect(server.requests.at(-1)?.url).toBe('/api/v1/configmaps');
    await cs.coreV1.namespaces().get('n');
    expect(server.requests.at(-1)?.url).toBe('/api/v1/namespaces/n');
  });

  it('applies client-go rules to qps and burst', () => {
    expect(() =>
      createClientset(resolvedConfig('http://127.0.0.1:1'), { throttle: { qps: 20, burst: 0 } }),
    ).toThrow(
      new RestConfigurationError(
        'burst is required to be greater than 0 when RateLimiter is not set and QPS is set to greater than 0',
      ),
    );
  });

  it('uses a disk discovery cache when asked', () => {
    const cs = createClientset(resolvedConfig('http://127.0.0.1:1'), {
      discoveryCache: { directory: '/tmp/k-unused' },
    });
    closers.push(() => cs.close());
    expect(cs.discovery.cache).toBeInstanceOf(DiskDiscoveryCache);
  });
});
