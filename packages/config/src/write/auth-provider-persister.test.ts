import { readFileSync, rmSync, statSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadKubeconfig } from '../load/load-kubeconfig.js';
import { resolveConfig } from '../resolve/resolve-config.js';
import type { ResolvedConfig } from '../resolve/resolved-config.js';
import { createTempFiles, type TempFiles } from '../testing/temp-files.js';
import { authProviderPersisterFor } from './auth-provider-persister.js';

const KUBECONFIG = `# my clusters
apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://c.example:6443"}
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
contexts:
- name: oidc
  context: {cluster: c, user: oidc-user}
- name: token
  context: {cluster: c, user: someone}
current-context: oidc
`;

const NEW_TOKENS = new Map([
  ['idp-issuer-url', 'https://issuer.example'],
  ['client-id', 'k'],
  ['id-token', 'new-id-token'],
  ['refresh-token', 'new-refresh-token'],
]);

describe('authProviderPersisterFor', () => {
  let files: TempFiles;
  let path: string;
  const resolve = async (context = 'oidc') =>
    resolveConfig(await loadKubeconfig({ explicitPath: path, env: {} }), { context });

  beforeEach(() => {
    files = createTempFiles('k-persist-');
    path = files.write('config', KUBECONFIG);
  });
  afterEach(() => files.cleanup());

  it('writes the new tokens into the user stanza of the file, keeping comments and other users', async () => {
    const mode = statSync(path).mode;
    const persist = authProviderPersisterFor(await resolve());
    expect(persist).toBeTypeOf('function');
    await persist!(NEW_TOKENS);
    const written = readFileSync(path, 'utf8');
    expect(written).toContain('id-token: new-id-token');
    expect(written).toContain('refresh-token: new-refresh-token');
    expect(written).not.toContain('old-');
    for (const kept of ['# my clusters', '- name: oidc-user # from the IdP', 'token: keep-me']) {
      expect(written).toContain(kept);
    }
    expect(statSync(path).mode).toBe(mode);
    // What the next resolve reads is what was written.
    const next = await resolve();
    expect(next.auth.kind === 'auth-provider' && next.auth.config.get('id-token')).toBe(
      'new-id-token',
    );
  });

  it('has nothing to write to for other auth kinds and configs from nowhere', async () => {
    expect(authProviderPersisterFor(await resolve('token'))).toBeUndefined();
    const fromNowhere: ResolvedConfig = {
      ...(await resolve()),
      auth: { kind: 'auth-provider', name: 'oidc', config: new Map(), userName: 'oidc-user' },
    };
    expect(authProviderPersisterFor(fromNowhere)).toBeUndefined();
  });

  it("rejects with the writer's error when the file is gone, without a token in the message", async () => {
    const persist = authProviderPersisterFor(await resolve())!;
    rmSync(path);
    const error = (await persist(NEW_TOKENS).catch((caught: unknown) => caught)) as Error;
    expect(error).toMatchObject({ code: 'ERR_CONFIG_READ' });
    expect(error.message).not.toContain('new-id-token');
  });
});
