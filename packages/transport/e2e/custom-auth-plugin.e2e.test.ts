import 'reflect-metadata';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadKubeconfig, resolveConfig } from '@k/config';
import { singleContextKubeconfig } from '@k/test-utils';
import { controlPlane } from '@k/testenv/vitest';
import { container } from 'tsyringe';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CREDENTIAL_PROVIDER_FACTORY,
  RESOLVED_CONFIG,
  TRANSPORT,
  registerTransport,
} from '../src/di.js';
import type { CredentialProviderFactory } from '../src/index.js';
import { whoAmI } from './support/cluster.js';

describe('a custom auth plugin registered through DI, against the real API server', () => {
  let kubeconfigPath: string;

  beforeAll(() => {
    const { server, caPem } = controlPlane();
    kubeconfigPath = join(mkdtempSync(join(tmpdir(), 'k-plugin-')), 'kubeconfig');
    // A user served by the `env-token` plugin.
    writeFileSync(
      kubeconfigPath,
      singleContextKubeconfig(
        { server, caPem },
        'plugin-user',
        { 'auth-provider': { name: 'env-token', config: { variable: 'K_EXAMPLE_TOKEN' } } },
        'plugin',
      ),
    );
  });

  it('selects the plugin by auth-provider name and authenticates with its credentials', async () => {
    const config = resolveConfig(await loadKubeconfig({ explicitPath: kubeconfigPath }));
    const calls: string[] = [];
    const handOutTester: CredentialProviderFactory = {
      kind: 'env-token',
      create: (context) => {
        calls.push(context.config.userName);
        return {
          kind: 'env-token',
          getCredentials: () =>
            Promise.resolve({ authorization: `Bearer ${controlPlane().users.tester.token}` }),
        };
      },
    };
    const scope = registerTransport(container.createChildContainer());
    scope.register(RESOLVED_CONFIG, { useValue: config });
    scope.register(CREDENTIAL_PROVIDER_FACTORY, { useValue: handOutTester });
    const transport = scope.resolve(TRANSPORT);
    try {
      expect((await whoAmI(transport)).username).toBe('tester');
      expect(calls).toEqual(['plugin-user']);
    } finally {
      await transport.close();
    }
  });

  it('fails clearly without the plugin registered', async () => {
    const config = resolveConfig(await loadKubeconfig({ explicitPath: kubeconfigPath }));
    const scope = registerTransport(container.createChildContainer(), { config });
    expect(() => scope.resolve(TRANSPORT)).toThrow(
      'no credential provider for auth-provider "env-token"',
    );
  });
});
