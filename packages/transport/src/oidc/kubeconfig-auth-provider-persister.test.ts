import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { kubeconfigAuthProviderPersister } from './kubeconfig-auth-provider-persister.js';

const KUBECONFIG = `# my clusters
apiVersion: v1
kind: Config
users:
- name: someone
  user:
    token: keep-me
- name: oidc-user # from the IdP
  user:
    auth-provider:
      name: oidc
      config:
        idp-issuer-url: https://issuer.example
        client-id: k
        id-token: old-id-token # expires soon
        refresh-token: old-refresh-token
`;

describe('kubeconfigAuthProviderPersister', () => {
  let directory: string;
  let path: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'k-oidc-persist-'));
    path = join(directory, 'config');
    writeFileSync(path, KUBECONFIG, { mode: 0o600 });
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('writes the new tokens into the user stanza, keeping comments and other users', async () => {
    const persist = kubeconfigAuthProviderPersister(path, 'oidc-user');
    await persist(
      new Map([
        ['idp-issuer-url', 'https://issuer.example'],
        ['client-id', 'k'],
        ['id-token', 'new-id-token'],
        ['refresh-token', 'new-refresh-token'],
      ]),
    );
    const written = readFileSync(path, 'utf8');
    expect(written).toContain('id-token: new-id-token');
    expect(written).toContain('refresh-token: new-refresh-token');
    expect(written).not.toContain('old-');
    for (const kept of ['# my clusters', '- name: oidc-user # from the IdP', 'token: keep-me']) {
      expect(written).toContain(kept);
    }
  });

  it('rejects when the file is gone or the user has no auth-provider', async () => {
    await expect(
      kubeconfigAuthProviderPersister(path, 'someone')(new Map([['id-token', 'x']])),
    ).rejects.toThrow('user "someone" has no auth-provider to update');
    rmSync(path);
    await expect(
      kubeconfigAuthProviderPersister(path, 'oidc-user')(new Map([['id-token', 'x']])),
    ).rejects.toMatchObject({ code: 'ERR_CONFIG_READ' });
  });
});
