import 'reflect-metadata';
import type { ResolvedConfig } from '@k/config';
import { container as globalContainer, type InjectionToken } from 'tsyringe';
import { describe, expect, it } from 'vitest';
import type { CredentialProviderFactory } from './auth/credential-provider.js';
import { registerTransport } from './register.js';
import * as tokens from './tokens.js';
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

const plugin: CredentialProviderFactory = {
  kind: 'my-plugin',
  create: () => ({ kind: 'my-plugin', getCredentials: () => Promise.resolve({}) }),
};

describe('registerTransport', () => {
  it('lets a fresh container resolve every exported token', async () => {
    const container = registerTransport(globalContainer.createChildContainer(), { config });
    container.register(tokens.CREDENTIAL_PROVIDER_FACTORY, { useValue: plugin });
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
