import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadKubeconfig, resolveConfig, type ResolvedConfig } from '@k/config';
import { authProviderPersisterFor } from '@k/config/edit';
import { kubeRequest, startControlPlane, type ControlPlane } from '@k/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { builtinCredentialProviderFactories } from '../src/auth.js';
import {
  createOidcCredentialProviderFactory,
  oidcCredentialProviderFactory,
  type OidcCredentialProvider,
} from '../src/oidc.js';
import { createTransport } from '../src/index.js';
import { whoAmI } from './fixtures/exec-plugin-requests.js';
import {
  authenticationConfiguration,
  startOidcIssuer,
  type OidcIssuer,
} from './fixtures/oidc-issuer.js';

const SUBJECT = 'oidc-alice@example.com';
const CLIENT_SECRET = 'oidc-client-secret-4f1c2b';

/**
 * OIDC end to end: a SECOND control plane (tools/testenv) runs a JWT authenticator that trusts a
 * small OpenID provider this test runs on loopback with its own CA (a fake IdP: discovery, JWKS
 * with an RSA key, a token endpoint that signs fresh RS256 id-tokens). The kubeconfig holds an
 * EXPIRED id-token and a refresh token; a request refreshes it, succeeds as the OIDC user, and the
 * refreshed tokens are written back into the kubeconfig with its comments intact.
 */
describe('oidc auth-provider (real control plane with a JWT authenticator)', () => {
  let issuer: OidcIssuer;
  let plane: ControlPlane;
  let directory: string;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'k-oidc-e2e-'));
    issuer = await startOidcIssuer({ clientSecret: CLIENT_SECRET });
    const configPath = join(directory, 'authentication-config.yaml');
    writeFileSync(configPath, authenticationConfiguration(issuer));
    const startedAt = Date.now();
    plane = await startControlPlane({
      extraApiServerFlags: [`--authentication-config=${configPath}`],
      controllerManager: false,
    });
    process.stderr.write(`[oidc e2e] second control plane ready in ${Date.now() - startedAt}ms\n`);
    // No controller-manager runs, so the aggregated `view` role would be empty: use our own.
    const role = await kubeRequest({
      server: plane.server,
      path: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
      method: 'POST',
      caPem: plane.caPem,
      credentials: plane.users.admin,
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'k-oidc-e2e:configmap-reader' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
      },
    });
    expect(role.status).toBe(201);
    const binding = await kubeRequest({
      server: plane.server,
      path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
      method: 'POST',
      caPem: plane.caPem,
      credentials: plane.users.admin,
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'k-oidc-e2e:configmap-reader' },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: 'k-oidc-e2e:configmap-reader',
        },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: SUBJECT }],
      },
    });
    expect(binding.status).toBe(201);
    // The JWT authenticator fetches the issuer's keys in the background: wait until it accepts a
    // valid token before testing the refresh path.
    const probe = issuer.signIdToken(SUBJECT, Math.floor(Date.now() / 1000) + 300);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const review = await whoAmI(plane, { authorization: `Bearer ${probe}` });
      if (review.status === 201) break;
      if (Date.now() > deadline)
        throw new Error(`the JWT authenticator never accepted a token (${review.status})`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }, 180_000);

  afterAll(async () => {
    await plane?.stop();
    await issuer?.close();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  const writeKubeconfig = (name: string, idToken: string, refreshToken: string): string => {
    const path = join(directory, name);
    const caData = Buffer.from(plane.caPem).toString('base64');
    writeFileSync(
      path,
      [
        '# kubeconfig for the OIDC end-to-end test',
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: second # the control plane with the JWT authenticator',
        '  cluster:',
        `    server: ${plane.server}`,
        `    certificate-authority-data: ${caData}`,
        'users:',
        '- name: oidc-user',
        '  user:',
        '    auth-provider:',
        '      name: oidc',
        '      config:',
        `        idp-issuer-url: ${issuer.url} # the loopback IdP`,
        `        client-id: ${issuer.clientId}`,
        `        client-secret: ${CLIENT_SECRET}`,
        `        idp-certificate-authority: ${issuer.caPath}`,
        '        extra-scopes: groups',
        `        id-token: ${idToken}`,
        `        refresh-token: ${refreshToken}`,
        'contexts:',
        '- name: oidc',
        '  context:',
        '    cluster: second',
        '    user: oidc-user',
        'current-context: oidc',
        '# trailing comment',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    return path;
  };

  const resolve = async (path: string): Promise<ResolvedConfig> =>
    resolveConfig(await loadKubeconfig({ explicitPath: path }));

  it('refreshes an expired id-token and the server accepts the new one', async () => {
    const expired = issuer.signIdToken(SUBJECT, Math.floor(Date.now() / 1000) - 120);
    const path = writeKubeconfig('kubeconfig-memory', expired, issuer.issueRefreshToken(SUBJECT));
    const persisted: Map<string, string>[] = [];
    const factory = createOidcCredentialProviderFactory({
      persist: (config) => {
        persisted.push(config);
        return Promise.resolve();
      },
    });
    const provider = factory.create({ config: await resolve(path), now: Date.now });
    try {
      expect((await whoAmI(plane, { authorization: `Bearer ${expired}` })).status).toBe(401);
      const credentials = await provider.getCredentials();
      const review = await whoAmI(plane, credentials);
      expect(review.status).toBe(201);
      expect(review.user?.username).toBe(SUBJECT);
      expect(persisted).toHaveLength(1);
      expect(`Bearer ${persisted[0]?.get('id-token')}`).toBe(credentials.authorization);
    } finally {
      await provider.close?.();
    }
  });

  it('works through createTransport: the expired token is refreshed before the request', async () => {
    const expired = issuer.signIdToken(SUBJECT, Math.floor(Date.now() / 1000) - 120);
    const path = writeKubeconfig(
      'kubeconfig-transport',
      expired,
      issuer.issueRefreshToken(SUBJECT),
    );
    const persisted: Map<string, string>[] = [];
    const oidc = createOidcCredentialProviderFactory({
      persist: (config) => {
        persisted.push(config);
        return Promise.resolve();
      },
    });
    const factories = [
      ...builtinCredentialProviderFactories().filter((factory) => factory.kind !== 'oidc'),
      oidc,
    ];
    const transport = createTransport(await resolve(path), {
      credentialProviderFactories: factories,
      builtinCredentialProviders: false,
    });
    try {
      const response = await request(
        new URL('/apis/authentication.k8s.io/v1/selfsubjectreviews', transport.server.origin),
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            apiVersion: 'authentication.k8s.io/v1',
            kind: 'SelfSubjectReview',
          }),
          dispatcher: transport,
        },
      );
      const body = (await response.body.json()) as {
        status?: { userInfo?: { username?: string } };
      };
      expect(response.statusCode).toBe(201);
      expect(body.status?.userInfo?.username).toBe(SUBJECT);
      expect(persisted).toHaveLength(1);
      // Listing config maps is what the OIDC user was granted (RBAC).
      const list = await request(
        new URL('/api/v1/namespaces/default/configmaps', transport.server.origin),
        {
          dispatcher: transport,
        },
      );
      await list.body.dump();
      expect(list.statusCode).toBe(200);
      expect(persisted).toHaveLength(1);
    } finally {
      await transport.close();
    }
  });

  it('refreshes an expired id-token, succeeds, and persists the new tokens in the kubeconfig', async () => {
    const expired = issuer.signIdToken(SUBJECT, Math.floor(Date.now() / 1000) - 120);
    const refreshToken = issuer.issueRefreshToken(SUBJECT);
    const path = writeKubeconfig('kubeconfig', expired, refreshToken);
    const before = readFileSync(path, 'utf8');
    const config = await resolve(path);
    expect(config.auth).toMatchObject({ kind: 'auth-provider', name: 'oidc', origin: path });

    // The expired token itself is refused by the server.
    expect((await whoAmI(plane, { authorization: `Bearer ${expired}` })).status).toBe(401);

    const tokenRequests = issuer.counts.token;
    // The persister comes from @k/config, injected as the transport injects it.
    const provider = oidcCredentialProviderFactory.create({
      config,
      now: Date.now,
      persistAuthProviderConfig: authProviderPersisterFor(config),
    });
    try {
      const startedAt = Date.now();
      const results = await Promise.all(
        Array.from({ length: 20 }, () => provider.getCredentials()),
      );
      const refreshMs = Date.now() - startedAt;
      expect(issuer.counts.token - tokenRequests).toBe(1);
      const credentials = results[0]!;
      expect(new Set(results).size).toBe(1);
      const review = await whoAmI(plane, credentials);
      expect(review.status).toBe(201);
      expect(review.user?.username).toBe(SUBJECT);
      process.stderr.write(`[oidc e2e] 20 concurrent callers, 1 refresh, ${refreshMs}ms\n`);

      const after = readFileSync(path, 'utf8');
      const newIdToken = credentials.authorization!.replace(/^Bearer /, '');
      expect(newIdToken).not.toBe(expired);
      expect(after).toContain(`id-token: ${newIdToken}`);
      expect(after).not.toContain(expired);
      expect(after).not.toContain(refreshToken); // the IdP rotated it
      expect(after).toMatch(/refresh-token: rt-[0-9a-f]{32}/);
      for (const kept of [
        '# kubeconfig for the OIDC end-to-end test',
        '- name: second # the control plane with the JWT authenticator',
        `idp-issuer-url: ${issuer.url} # the loopback IdP`,
        `client-secret: ${CLIENT_SECRET}`,
        'extra-scopes: groups',
        '# trailing comment',
      ]) {
        expect(after).toContain(kept);
      }
      // Apart from the two token lines (and blank lines), the file is as it was.
      const shape = (text: string) =>
        text
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => line.replace(/(id-token|refresh-token): .*/, '$1: …'));
      expect(shape(after)).toEqual(shape(before));
      expect(statSync(path).mode & 0o777).toBe(0o600);

      // A new process reading the file needs no refresh.
      const next = oidcCredentialProviderFactory.create({
        config: await resolve(path),
        now: Date.now,
      });
      expect((await next.getCredentials()).authorization).toBe(credentials.authorization);
      expect(issuer.counts.token - tokenRequests).toBe(1);
      await next.close?.();
    } finally {
      await provider.close?.();
    }
  });

  it('a refused refresh fails the request with an error that holds no token or secret', async () => {
    const expired = issuer.signIdToken(SUBJECT, Math.floor(Date.now() / 1000) - 120);
    const path = writeKubeconfig('kubeconfig-revoked', expired, 'rt-revoked-refresh-token');
    const before = readFileSync(path, 'utf8');
    const provider = oidcCredentialProviderFactory.create({
      config: await resolve(path),
      now: Date.now,
    }) as OidcCredentialProvider;
    try {
      const error = (await provider
        .getCredentials()
        .catch((caught: unknown) => caught)) as Error & {
        code?: string;
      };
      expect(error.code).toBe('ERR_TRANSPORT_OIDC_REFRESH');
      expect(error.message).toBe(
        `oidc issuer ${issuer.url}: failed to refresh token: oauth2: "invalid_grant" "refresh token is not valid"`,
      );
      const everything = `${error.message} ${JSON.stringify(error)}`;
      for (const secret of ['rt-revoked-refresh-token', CLIENT_SECRET, expired]) {
        expect(everything).not.toContain(secret);
      }
      expect(readFileSync(path, 'utf8')).toBe(before);
    } finally {
      await provider.close?.();
    }
  });
});
