import { describe, expect, it } from 'vitest';
import { builtinCredentialProviderFactories } from './builtin-credential-provider-factories.js';
import type { CredentialProviderFactory } from './credential-provider.js';
import {
  credentialProviderKind,
  selectCredentialProviderFactory,
} from './select-credential-provider-factory.js';

const plugin = (kind: string): CredentialProviderFactory => ({
  kind,
  create: () => ({ kind, getCredentials: () => Promise.resolve({}) }),
});

const authProvider = (name: string) => ({
  kind: 'auth-provider' as const,
  name,
  config: new Map<string, string>(),
  userName: 'u',
});

describe('credential provider selection', () => {
  it('maps resolved auth to a factory kind', () => {
    expect(credentialProviderKind({ kind: 'none' })).toBeUndefined();
    expect(credentialProviderKind({ kind: 'token', token: 't' })).toBe('token');
    expect(credentialProviderKind({ kind: 'basic', username: 'u', password: '' })).toBe('basic');
    expect(credentialProviderKind(authProvider('oidc'))).toBe('oidc');
  });

  it('selects a custom plugin by its auth-provider name', () => {
    const custom = plugin('vault');
    const factories = [...builtinCredentialProviderFactories(), custom];
    expect(selectCredentialProviderFactory(authProvider('vault'), factories)).toBe(custom);
    expect(selectCredentialProviderFactory({ kind: 'none' }, factories)).toBeUndefined();
  });

  it('refuses two factories of one kind', () => {
    expect(() =>
      selectCredentialProviderFactory({ kind: 'none' }, [plugin('vault'), plugin('vault')]),
    ).toThrow(
      expect.objectContaining({
        code: 'ERR_TRANSPORT_CREDENTIAL_PROVIDER_DUPLICATE',
        message: 'credential provider kind "vault" is registered twice',
      }),
    );
  });

  it('names the missing kind', () => {
    expect(() => selectCredentialProviderFactory(authProvider('nope'), [])).toThrow(
      'no credential provider for auth-provider "nope"',
    );
    expect(() => selectCredentialProviderFactory({ kind: 'token', token: 't' }, [])).toThrow(
      'no credential provider for "token" users',
    );
  });

  it("fails gcp and azure with client-go's removal messages", () => {
    const factories = builtinCredentialProviderFactories();
    const create = (name: string) => () =>
      selectCredentialProviderFactory(authProvider(name), factories)?.create({
        config: {} as never,
        now: Date.now,
      });
    expect(create('gcp')).toThrow(
      'The gcp auth plugin has been removed.\nPlease use the "gke-gcloud-auth-plugin" kubectl/client-go credential plugin instead.\nSee https://cloud.google.com/blog/products/containers-kubernetes/kubectl-auth-changes-in-gke for further details',
    );
    expect(create('azure')).toThrow(
      expect.objectContaining({
        code: 'ERR_TRANSPORT_AUTH_PROVIDER_REMOVED',
        message: expect.stringContaining('https://github.com/Azure/kubelogin') as string,
      }),
    );
  });
});
