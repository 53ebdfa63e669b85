import 'reflect-metadata';
import type { ResolvedConfig } from '@k/config';
import { REST_CLIENT, registerRest, RATE_LIMITER, TokenBucket } from '@k/rest';
import * as restTokens from '@k/rest';
import {
  RESOLVED_CONFIG,
  registerTransport,
  TRANSPORT,
  type CredentialProviderFactory,
} from '@k/transport';
import { container as rootContainer } from 'tsyringe';
import { afterEach, describe, expect, it } from 'vitest';
import { Clientset } from './clientset.js';
import { createClientset } from './create-clientset.js';
import { DiskDiscoveryCache } from './discovery/discovery-cache.js';
import { ClientsetError } from './errors.js';
import * as clientset from './index.js';
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
  return {
    server: url,
    contextName: 'test',
    clusterName: 'test',
    userName: 'test',
    namespace: 'default',
    namespaceExplicit: false,
    tls: { insecure: false },
    auth: { kind: 'none' },
    disableCompression: true,
    source: 'kubeconfig',
  };
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

describe('registerClientset (recording fake server)', () => {
  it('resolves every exported token from a fresh container, wired to @k/rest and @k/transport', async () => {
    server = await echoServer();
    const container = rootContainer.createChildContainer();
    registerTransport(container, { config: resolvedConfig(server.url) });
    registerRest(container);
    registerClientset(container);
    closers.push(() => container.resolve(TRANSPORT).close());
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
      expect(clientset[name as keyof typeof clientset], `${name} is exported from the index`).toBe(
        token,
      );
    }
    for (const token of [
      RESOLVED_CONFIG,
      TRANSPORT,
      restTokens.REST_CLIENT,
      restTokens.RATE_LIMITER,
      restTokens.RETRY_POLICY,
      restTokens.WARNING_HANDLER,
      restTokens.REST_CLIENT_OPTIONS,
      restTokens.REST_TRANSPORT,
    ]) {
      expect(container.resolve(token as symbol)).toBeDefined();
    }
    const resolved = container.resolve(tokens.CLIENTSET);
    expect(resolved).toBeInstanceOf(Clientset);
    expect(container.resolve(tokens.CLIENTSET)).toBe(resolved);
    expect(resolved.discovery).toBe(container.resolve(tokens.DISCOVERY_CLIENT));
    expect(resolved.rest).toBe(container.resolve(REST_CLIENT));
    expect((await resolved.coreV1.configMaps('ns').get('echo')).metadata?.name).toBe('echo');
  });

  it('refuses to register twice in one container', () => {
    const container = rootContainer.createChildContainer();
    registerClientset(container);
    expect(() => registerClientset(container)).toThrow(/already registered/);
  });
});

describe('createClientset (recording fake server)', () => {
  it('composes config → transport → rest → clientset in a child container and closes the transport', async () => {
    server = await echoServer();
    const parent = rootContainer.createChildContainer();
    const cs = await createClientset({
      config: resolvedConfig(server.url),
      container: parent,
      qps: 50,
      burst: 100,
    });
    expect(parent.isRegistered(tokens.CLIENTSET, false)).toBe(false);
    const bucket = cs.rest.throttle as TokenBucket;
    expect([bucket.qps, bucket.burst]).toEqual([50, 100]);
    expect(cs.appsV1).toBe(cs.appsV1);
    expect((await cs.coreV1.configMaps('ns').get('echo')).metadata?.name).toBe('echo');
    await cs.close();
    await cs.close();
    await expect(cs.coreV1.configMaps('ns').get('echo')).rejects.toThrow();
  });

  it('takes a custom auth plugin and lets configure override any token', async () => {
    server = await echoServer();
    const plugin: CredentialProviderFactory = {
      kind: 'test-plugin',
      create: () => ({
        kind: 'test-plugin',
        getCredentials: () => Promise.resolve({ authorization: 'Bearer from-plugin' }),
      }),
    };
    const limiter = TokenBucket.unlimited();
    const cs = await createClientset({
      config: {
        ...resolvedConfig(server.url),
        auth: { kind: 'auth-provider', name: 'test-plugin', config: new Map(), userName: 'test' },
      },
      credentialProviderFactories: [plugin],
      configure: (container) => container.register(RATE_LIMITER, { useValue: limiter }),
    });
    closers.push(() => cs.close());
    expect(cs.rest.throttle).toBe(limiter);
    const answer = await cs.coreV1.configMaps('ns').get('echo');
    expect(answer.data?.authorization).toBe('Bearer from-plugin');
  });

  it('applies client-go rules to qps and burst', async () => {
    await expect(
      createClientset({ config: resolvedConfig('http://127.0.0.1:1'), qps: 20, burst: 0 }),
    ).rejects.toSatisfy(
      (error) =>
        ClientsetError.isInstance(error) &&
        error.code === 'ERR_CONFIGURATION' &&
        error.message ===
          'burst is required to be greater than 0 when RateLimiter is not set and QPS is set to greater than 0',
    );
  });

  it('uses a disk discovery cache when asked', async () => {
    server = await echoServer();
    const cs = await createClientset({
      config: resolvedConfig(server.url),
      discoveryCache: { directory: '/tmp/k-unused' },
    });
    closers.push(() => cs.close());
    expect(cs.discovery.cache).toBeInstanceOf(DiskDiscoveryCache);
  });
});
