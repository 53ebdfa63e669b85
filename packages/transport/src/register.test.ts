import 'reflect-metadata';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ResolvedConfig } from '@k/config';
import { container as globalContainer, type InjectionToken } from 'tsyringe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CredentialProviderFactory } from './auth/credential-provider.js';
import { registerTransport } from './register.js';
import * as tokens from './tokens.js';
import { describeTransportStack } from './transport/describe-transport-stack.js';
import type { TransportInterceptor } from './transport/transport-interceptor.js';
import { Transport } from './transport/transport.js';

const config: ResolvedConfig = {
  server: 'https://127.0.0.1:6443',
  contextName: 'c',
  clusterName: 'c',
  userName: 'u',
  namespace: 'default',
  namespaceExplicit: false,
  tls: { insecure: true },
  auth: { kind: 'auth-provider', name: 'my-plugin', config: new Map(), userName: 'u' },
  disableCompression: false,
  source: 'kubeconfig',
};

/** observer is a user interceptor that records the path of every request it sees. */
function observer(name: string, seen: string[]): TransportInterceptor {
  return {
    name,
    position: 'request',
    interceptor: (dispatch) => (request, handler) => {
      seen.push(`${name} ${request.path}`);
      return dispatch(request, handler);
    },
  };
}

const plugin: CredentialProviderFactory = {
  kind: 'my-plugin',
  create: () => ({ kind: 'my-plugin', getCredentials: () => Promise.resolve({}) }),
};

describe('registerTransport', () => {
  it('lets a fresh container resolve every exported token', async () => {
    const container = registerTransport(globalContainer.createChildContainer(), { config });
    container.register(tokens.CREDENTIAL_PROVIDER_FACTORY, { useValue: plugin });
    // Multi-registration tokens without a default get one registration each.
    container.register(tokens.TRANSPORT_INTERCEPTOR, { useValue: observer('observer', []) });
    for (const [name, token] of Object.entries(tokens) as [string, InjectionToken<unknown>][]) {
      expect(container.isRegistered(token), name).toBe(true);
      expect(container.resolve(token), name).toBeDefined();
    }
    const transport = container.resolve(tokens.TRANSPORT);
    expect(transport).toBeInstanceOf(Transport);
    expect(container.resolve(tokens.TRANSPORT)).toBe(transport);
    expect(transport.credentialProvider?.kind).toBe('my-plugin');
    const kinds = container
      .resolveAll(tokens.CREDENTIAL_PROVIDER_FACTORY)
      .map((factory) => factory.kind);
    // The built-ins are the transport's own, not registrations that could hide a parent's.
    expect(kinds).toEqual(['my-plugin']);
    await transport.close();
  });

  it("uses a plugin registered in the parent container, with the child's built-ins", async () => {
    const parent = globalContainer.createChildContainer();
    parent.register(tokens.CREDENTIAL_PROVIDER_FACTORY, { useValue: plugin });
    const child = registerTransport(parent.createChildContainer(), { config });
    const transport = child.resolve(tokens.TRANSPORT);
    expect(transport.credentialProvider?.kind).toBe('my-plugin');
    await transport.close();
    // A token user of the same child still gets the built-in token provider.
    const tokenUser = registerTransport(parent.createChildContainer(), {
      config: { ...config, auth: { kind: 'token', token: 't' } },
    });
    const second = tokenUser.resolve(tokens.TRANSPORT);
    expect(second.credentialProvider?.kind).toBe('token');
    await second.close();
  });

  it('uses Symbol.for names, so copies of the package share tokens', () => {
    expect(tokens.TRANSPORT).toBe(Symbol.for('@k/transport.Transport'));
    expect(tokens.RESOLVED_CONFIG).toBe(Symbol.for('@k/transport.ResolvedConfig'));
    expect(tokens.CREDENTIAL_PROVIDER_FACTORY).toBe(
      Symbol.for('@k/transport.CredentialProviderFactory'),
    );
    expect(tokens.TRANSPORT_INTERCEPTOR).toBe(Symbol.for('@k/transport.TransportInterceptor'));
  });

  it('reports a plugin registered under a built-in kind when the transport is built', () => {
    const container = registerTransport(globalContainer.createChildContainer(), { config });
    container.register(tokens.CREDENTIAL_PROVIDER_FACTORY, {
      useValue: { ...plugin, kind: 'token' },
    });
    expect(() => container.resolve(tokens.TRANSPORT)).toThrow(
      'credential provider kind "token" is registered twice',
    );
  });
});

describe('registerTransport with TRANSPORT_INTERCEPTOR, against a local HTTP server', () => {
  let server: Server;
  let local: ResolvedConfig;

  beforeAll(async () => {
    server = createServer((_request, response) => response.end('{}'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    local = {
      ...config,
      server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      tls: { insecure: false },
      auth: { kind: 'none' },
    };
  });

  afterAll(async () => {
    server.close();
    await once(server, 'close');
  });

  it('places interceptors registered in a parent container after the options ones, and they see requests', async () => {
    const seen: string[] = [];
    const parent = globalContainer.createChildContainer();
    parent.register(tokens.TRANSPORT_INTERCEPTOR, { useValue: observer('from-parent', seen) });
    parent.register(tokens.TRANSPORT_INTERCEPTOR, { useValue: observer('also-parent', seen) });
    const child = registerTransport(parent.createChildContainer(), {
      config: local,
      interceptors: [observer('from-options', seen)],
    });
    const transport = child.resolve(tokens.TRANSPORT);
    try {
      expect(describeTransportStack(transport)).toBe(
        'from-options → from-parent → also-parent → user-agent → compression → pool',
      );
      const response = await transport.request({ method: 'GET', path: '/api' });
      await response.body.dump();
      expect(seen).toEqual(['from-options /api', 'from-parent /api', 'also-parent /api']);
    } finally {
      await transport.close();
    }
  });

  it('builds the built-in stack alone when no interceptor is registered', async () => {
    const container = registerTransport(globalContainer.createChildContainer(), { config: local });
    const transport = container.resolve(tokens.TRANSPORT);
    expect(describeTransportStack(transport)).toBe('user-agent → compression → pool');
    await transport.close();
  });

  it('reports a duplicate interceptor name when the transport is built', () => {
    const container = registerTransport(globalContainer.createChildContainer(), { config: local });
    container.register(tokens.TRANSPORT_INTERCEPTOR, { useValue: observer('twice', []) });
    container.register(tokens.TRANSPORT_INTERCEPTOR, { useValue: observer('twice', []) });
    expect(() => container.resolve(tokens.TRANSPORT)).toThrow(
      expect.objectContaining({
        code: 'ERR_TRANSPORT_INTERCEPTOR_DUPLICATE',
        message: 'transport interceptor name "twice" is used twice',
      }),
    );
  });
});
