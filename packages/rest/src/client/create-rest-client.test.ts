import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadKubeconfig, resolveConfig } from '@k/config';
import type { CredentialProviderContext, CredentialProviderFactory } from '@k/transport';
import { describe, expect, it } from 'vitest';
import { createRestClient } from './create-rest-client.js';

const KUBECONFIG = `apiVersion: v1
kind: Config
# a comment that must survive
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:6443
users:
- name: u
  user:
    auth-provider:
      name: recording
      config:
        id-token: old
contexts:
- name: x
  context: { cluster: c, user: u }
current-context: x
`;

function recordingPlugin(contexts: CredentialProviderContext[]): CredentialProviderFactory {
  return {
    kind: 'recording',
    create: (context) => {
      contexts.push(context);
      return { kind: 'recording', getCredentials: () => Promise.resolve({}) };
    },
  };
}

describe('createRestClient and auth-provider persistence', () => {
  it('writes refreshed auth-provider config back to the kubeconfig the user came from', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'k-persist-'));
    const file = join(directory, 'config');
    await writeFile(file, KUBECONFIG);
    const config = resolveConfig(await loadKubeconfig({ explicitPath: file }));
    const contexts: CredentialProviderContext[] = [];
    const client = createRestClient(config, {
      transport: { credentialProviderFactories: [recordingPlugin(contexts)] },
    });
    try {
      await contexts[0]?.persistAuthProviderConfig?.(
        new Map([
          ['id-token', 'new'],
          ['refresh-token', 'r'],
        ]),
      );
      const written = await readFile(file, 'utf8');
      expect(written).toContain('id-token: new');
      expect(written).toContain('refresh-token: r');
      expect(written).toContain('# a comment that must survive');
    } finally {
      await client.close();
    }
  });

  it("keeps the caller's own persister", async () => {
    const directory = await mkdtemp(join(tmpdir(), 'k-persist-'));
    const file = join(directory, 'config');
    await writeFile(file, KUBECONFIG);
    const config = resolveConfig(await loadKubeconfig({ explicitPath: file }));
    const contexts: CredentialProviderContext[] = [];
    const seen: Map<string, string>[] = [];
    const client = createRestClient(config, {
      transport: {
        credentialProviderFactories: [recordingPlugin(contexts)],
        persistAuthProviderConfig: (entries) => {
          seen.push(entries);
          return Promise.resolve();
        },
      },
    });
    try {
      await contexts[0]?.persistAuthProviderConfig?.(new Map([['id-token', 'mine']]));
      expect(seen).toHaveLength(1);
      expect(await readFile(file, 'utf8')).toContain('id-token: old');
    } finally {
      await client.close();
    }
  });
});
