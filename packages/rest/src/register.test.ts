import 'reflect-metadata';
import type { ResolvedConfig } from '@k/config';
import { apiServerDispatcher, Transport } from '@k/transport';
import { registerTransport } from '@k/transport/di';
import { container as globalContainer } from 'tsyringe';
import { testResolvedConfig } from '@k/config/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { RestClient } from './client/rest-client.js';
import { RestConfigurationError } from './errors.js';
import * as rest from './di.js';
import { registerRest } from './register.js';
import { RetryPolicy } from './retry/retry-policy.js';
import { TokenBucket } from './throttle/token-bucket.js';
import * as tokens from './tokens.js';
import { json, startFakeServer, type FakeServer } from './__fixtures__/fake-server.js';

let server: FakeServer | undefined;
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  await server?.close();
  server = undefined;
});

function resolvedConfig(url: string): ResolvedConfig {
  return testResolvedConfig(url, { disableCompression: true, timeoutMs: 30_000 });
}

describe('registerRest', () => {
  it('resolves every exported token from a fresh container, wired to @k/transport', async () => {
    server = await startFakeServer((_request, response, arrival) =>
      json(response, 200, { url: arrival.url }),
    );
    const container = globalContainer.createChildContainer();
    registerTransport(container, { config: resolvedConfig(server.url) });
    registerRest(container);
    const exported = Object.entries(tokens);
    expect(exported.map(([name]) => name).sort()).toEqual([
      'RATE_LIMITER',
      'REST_CLIENT',
      'REST_CLIENT_OPTIONS',
      'REST_TRANSPORT',
      'RETRY_POLICY',
      'WARNING_HANDLER',
    ]);
    for (const [name, token] of exported) {
      expect(container.resolve(token as symbol), name).toBeDefined();
      expect(rest[name as keyof typeof rest], `${name} is exported from @k/rest/di`).toBe(token);
    }
    const client = container.resolve(tokens.REST_CLIENT);
    closers.push(() => client.dispatcher.close());
    expect(client).toBeInstanceOf(RestClient);
    expect(container.resolve(tokens.REST_CLIENT)).toBe(client);
    expect(container.resolve(tokens.REST_TRANSPORT)).toBeInstanceOf(Transport);
    expect(client.throttle).toBe(container.resolve(tokens.RATE_LIMITER));
    expect(client.throttle).toBeInstanceOf(TokenBucket);
    expect(client.retry).toBeInstanceOf(RetryPolicy);
    // The configuration's timeout is the client's: sent as the `timeout` parameter.
    const answer = await client.get().resource('pods').execute<{ url: string }>();
    expect(answer.url).toBe('/api/v1/pods?timeout=30s');
    // Clients for other groups share the one bucket.
    expect(client.withGroupVersion('apps/v1').throttle).toBe(client.throttle);
  });

  it('takes a plain dispatcher, throttle settings and a retry policy', async () => {
    const { Agent } = await import('undici');
    const agent = new Agent();
    closers.push(() => agent.close());
    const container = globalContainer.createChildContainer();
    const retry = new RetryPolicy({ maxRetries: 2 });
    registerRest(container, {
      transport: apiServerDispatcher(agent, 'http://127.0.0.1:1/base/'),
      throttle: { qps: 50, burst: 100 },
      retry,
    });
    const client = container.resolve(tokens.REST_CLIENT);
    expect(client.retry).toBe(retry);
    expect((client.throttle as TokenBucket).qps).toBe(50);
    expect(client.get().resource('pods').url()).toBe('/base/api/v1/pods');
    expect(() => registerRest(container)).toThrow(RestConfigurationError);
  });

  it('closes the container-made transport with its client, never one passed in', async () => {
    const container = globalContainer.createChildContainer();
    registerTransport(container, { config: resolvedConfig('http://127.0.0.1:1') });
    registerRest(container);
    const client = container.resolve(tokens.REST_CLIENT);
    await client.close();
    expect((client.dispatcher as Transport).closed).toBe(true);

    const { Agent } = await import('undici');
    const agent = new Agent();
    closers.push(() => agent.close());
    const own = globalContainer.createChildContainer();
    registerRest(own, { transport: apiServerDispatcher(agent, 'http://127.0.0.1:1') });
    await own.resolve(tokens.REST_CLIENT).close();
    expect(agent.closed).toBe(false);
  });
});
