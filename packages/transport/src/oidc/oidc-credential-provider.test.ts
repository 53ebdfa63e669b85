import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import type { ResolvedConfig } from '@k/config';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { secretLeaks } from '../../e2e/support/secret-leaks.js';
import { startOidcIssuer, unsignedJwt, type OidcIssuer } from '../../e2e/fixtures/oidc-issuer.js';
import { OidcError } from '../errors.js';
import {
  OidcCredentialProvider,
  createOidcCredentialProviderFactory,
  type OidcCredentialProviderOptions,
} from './oidc-credential-provider.js';

function oidcConfig(entries: Record<string, string>, userName = 'oidc-user'): ResolvedConfig {
  return {
    server: 'https://127.0.0.1:6443',
    contextName: 'oidc',
    clusterName: 'cluster',
    userName,
    namespace: 'default',
    namespaceExplicit: false,
    tls: { insecure: false },
    auth: {
      kind: 'auth-provider',
      name: 'oidc',
      config: new Map(Object.entries(entries)),
      userName,
    },
    disableCompression: false,
    source: 'kubeconfig',
  };
}

const expiredToken = () => unsignedJwt({ sub: 'old', exp: Math.floor(Date.now() / 1000) - 60 });

const failure = async (promise: Promise<unknown>): Promise<OidcError> => {
  const error = await promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OidcError);
  return error as OidcError;
};

describe('OidcCredentialProvider configuration', () => {
  it('requires idp-issuer-url and client-id, and valid CA data', () => {
    expect(() => new OidcCredentialProvider(oidcConfig({ 'client-id': 'c' }))).toThrow(
      'oidc auth-provider of user "oidc-user": must provide idp-issuer-url',
    );
    expect(() => new OidcCredentialProvider(oidcConfig({ 'idp-issuer-url': 'https://i' }))).toThrow(
      'oidc issuer https://i: must provide client-id',
    );
    expect(
      () =>
        new OidcCredentialProvider(
          oidcConfig({
            'idp-issuer-url': 'https://i',
            'client-id': 'c',
            'idp-certificate-authority-data': 'not base64!',
          }),
        ),
    ).toThrow('oidc issuer https://i: idp-certificate-authority-data is not valid base64');
  });

  it('uses a valid id-token without any request', async () => {
    const idToken = unsignedJwt({ exp: Math.floor(Date.now() / 1000) + 3600 });
    const provider = new OidcCredentialProvider(
      oidcConfig({
        'idp-issuer-url': 'https://127.0.0.1:1',
        'client-id': 'c',
        'id-token': idToken,
      }),
    );
    const credentials = await provider.getCredentials();
    expect(credentials.authorization).toBe(`Bearer ${idToken}`);
    expect(credentials.expiresAt).toBeInstanceOf(Date);
    expect(await provider.getCredentials()).toBe(credentials);
    expect(provider.invalidate()).toBe(false);
    await provider.close();
  });

  it('fails without a refresh token, and for an id-token that is not a JWT', async () => {
    const base = { 'idp-issuer-url': 'https://127.0.0.1:1', 'client-id': 'c' };
    const none = new OidcCredentialProvider(oidcConfig({ ...base, 'id-token': expiredToken() }));
    const error = await failure(none.getCredentials());
    expect(error.code).toBe('ERR_TRANSPORT_OIDC_NO_REFRESH_TOKEN');
    expect(error.message).toBe(
      'oidc issuer https://127.0.0.1:1: no valid id-token, and cannot refresh without refresh-token',
    );
    const bad = new OidcCredentialProvider(
      oidcConfig({ ...base, 'id-token': 'notanidtoken', 'refresh-token': 'rt' }),
    );
    expect((await failure(bad.getCredentials())).code).toBe('ERR_TRANSPORT_OIDC_INVALID_ID_TOKEN');
  });
});

describe('OidcCredentialProvider refresh against a loopback issuer (a fake IdP)', () => {
  let issuer: OidcIssuer;
  const secret = 'client-secret-value-123';
  beforeAll(async () => {
    issuer = await startOidcIssuer({ clientSecret: secret, delayMs: 100 });
  });
  afterAll(() => issuer.close());
  const providers: OidcCredentialProvider[] = [];
  afterEach(async () => {
    for (const provider of providers.splice(0)) await provider.close();
  });

  const make = (
    entries: Record<string, string> = {},
    options: OidcCredentialProviderOptions = {},
  ) => {
    const provider = new OidcCredentialProvider(
      oidcConfig({
        'idp-issuer-url': issuer.url,
        'client-id': issuer.clientId,
        'client-secret': secret,
        'idp-certificate-authority-data': Buffer.from(issuer.caPem).toString('base64'),
        'id-token': expiredToken(),
        'refresh-token': issuer.issueRefreshToken('alice@example.com'),
        ...entries,
      }),
      options,
    );
    providers.push(provider);
    return provider;
  };

  it('refreshes an expired id-token once for 100 concurrent callers and persists the new tokens', async () => {
    const persisted: Map<string, string>[] = [];
    const provider = make(
      { 'extra-scopes': 'groups' },
      {
        persist: (config) => {
          persisted.push(config);
          return Promise.resolve();
        },
      },
    );
    const before = provider.config;
    const tokenRequests = issuer.counts.token;
    const results = await Promise.all(Array.from({ length: 100 }, () => provider.getCredentials()));
    expect(issuer.counts.token - tokenRequests).toBe(1);
    expect(provider.refreshes).toBe(1);
    expect(new Set(results).size).toBe(1);
    const idToken = provider.config.get('id-token')!;
    expect(results[0]?.authorization).toBe(`Bearer ${idToken}`);
    expect(JSON.parse(Buffer.from(idToken.split('.')[1]!, 'base64url').toString())).toMatchObject({
      iss: issuer.url,
      sub: 'alice@example.com',
      aud: issuer.clientId,
    });
    expect(persisted).toHaveLength(1);
    expect(persisted[0]?.get('id-token')).toBe(idToken);
    // The issuer rotates refresh tokens: the new one replaces the old one.
    expect(persisted[0]?.get('refresh-token')).not.toBe(before.get('refresh-token'));
    expect(persisted[0]?.get('extra-scopes')).toBe('groups');
    expect(persisted[0]?.get('client-secret')).toBe(secret);
    // Valid now: no further refresh.
    await provider.getCredentials();
    expect(issuer.counts.token - tokenRequests).toBe(1);
  });

  it('trusts the IdP CA from a file, and refuses the IdP without it', async () => {
    const fromFile = make({
      'idp-certificate-authority-data': '',
      'idp-certificate-authority': issuer.caPath,
    });
    expect((await fromFile.getCredentials()).authorization).toMatch(/^Bearer ey/);
    const untrusted = make({ 'idp-certificate-authority-data': '' });
    const error = await failure(untrusted.getCredentials());
    expect(error.code).toBe('ERR_TRANSPORT_OIDC_DISCOVERY');
    expect(error.message).toMatch(
      /^oidc issuer https:\/\/127\.0\.0\.1:\d+: failed to query metadata endpoint: /,
    );
  });

  it('does not use new tokens it could not persist', async () => {
    const provider = make(
      {},
      {
        persist: () =>
          Promise.reject(new Error('cannot update kubeconfig "/x": permission denied')),
      },
    );
    const before = provider.config;
    const error = await failure(provider.getCredentials());
    expect(error.code).toBe('ERR_TRANSPORT_OIDC_PERSIST');
    expect(error.message).toBe(
      `oidc issuer ${issuer.url}: could not persist new tokens: cannot update kubeconfig "/x": permission denied`,
    );
    expect(provider.config).toEqual(before);
  });

  it('reports a refused refresh without leaking the refresh token or the secret', async () => {
    const provider = make({ 'refresh-token': 'rt-unknown-refresh-token' });
    const error = await failure(provider.getCredentials());
    expect(error.code).toBe('ERR_TRANSPORT_OIDC_REFRESH');
    expect(error.status).toBe(400);
    expect(error.message).toBe(
      `oidc issuer ${issuer.url}: failed to refresh token: oauth2: "invalid_grant" "refresh token is not valid"`,
    );
    const everything = JSON.stringify({ message: error.message, error });
    expect(everything).not.toContain('rt-unknown-refresh-token');
    expect(everything).not.toContain(secret);
    const wrongSecret = make({ 'client-secret': 'wrong-secret-value' });
    const refused = await failure(wrongSecret.getCredentials());
    expect(refused.message).toContain('"invalid_client"');
    expect(refused.message).not.toContain('wrong-secret-value');
  });

  it('treats a request timeout longer than a Node timer holds as none, not 1 ms', async () => {
    const warnings: Error[] = [];
    const listener = (warning: Error) => warnings.push(warning);
    process.on('warning', listener);
    try {
      const provider = make({}, { requestTimeoutMs: 2 ** 31 });
      expect((await provider.getCredentials()).authorization).toMatch(/^Bearer ey/);
      expect(warnings.filter((warning) => warning.name === 'TimeoutOverflowWarning')).toEqual([]);
    } finally {
      process.off('warning', listener);
    }
  });

  it('fails when the issuer has no discovery document', async () => {
    const provider = make({ 'idp-issuer-url': `${issuer.url}/nowhere/` });
    const error = await failure(provider.getCredentials());
    expect(error.code).toBe('ERR_TRANSPORT_OIDC_DISCOVERY');
    expect(error.status).toBe(404);
    expect(error.message).toBe(
      `oidc issuer ${issuer.url}/nowhere/: failed to query metadata endpoint 404 Not Found: "{\\"error\\":\\"not_found\\"}"`,
    );
  });
});

describe('OidcCredentialProvider client authentication and responses', () => {
  it('falls back to form authentication when Basic is refused, and uses form first when only it is advertised', async () => {
    const postOnly = await startOidcIssuer({
      clientSecret: 's3cret',
      authMethods: ['client_secret_post'],
    });
    try {
      const provider = new OidcCredentialProvider(
        oidcConfig({
          'idp-issuer-url': postOnly.url,
          'client-id': postOnly.clientId,
          'client-secret': 's3cret',
          'idp-certificate-authority-data': Buffer.from(postOnly.caPem).toString('base64'),
          'refresh-token': postOnly.issueRefreshToken('bob'),
        }),
      );
      await provider.getCredentials();
      expect(postOnly.authStyles).toEqual(['post']);
      await provider.close();
    } finally {
      await postOnly.close();
    }
  });

  it('reports a token response without an id_token with client-go message', async () => {
    const okta = await startOidcIssuer({ omitIdToken: true });
    try {
      const provider = new OidcCredentialProvider(
        oidcConfig({
          'idp-issuer-url': okta.url,
          'client-id': okta.clientId,
          'idp-certificate-authority-data': Buffer.from(okta.caPem).toString('base64'),
          'refresh-token': okta.issueRefreshToken('carol'),
        }),
      );
      const error = await failure(provider.getCredentials());
      expect(error.message).toBe(
        `oidc issuer ${okta.url}: token response did not contain an id_token, either the scope "openid" wasn't requested upon login, or the provider doesn't support id_tokens as part of the refresh response`,
      );
      await provider.close();
    } finally {
      await okta.close();
    }
  });
});

describe('createOidcCredentialProviderFactory', () => {
  it('shares a provider per cluster, issuer, client and user, and passes the context persister', async () => {
    const factory = createOidcCredentialProviderFactory();
    expect(factory.kind).toBe('oidc');
    const idToken = unsignedJwt({ exp: Math.floor(Date.now() / 1000) + 3600 });
    const entries = {
      'idp-issuer-url': 'https://127.0.0.1:1',
      'client-id': 'c',
      'id-token': idToken,
    };
    const now = Date.now;
    const first = factory.create({ config: oidcConfig(entries), now });
    const second = factory.create({ config: oidcConfig(entries), now });
    const other = factory.create({ config: oidcConfig(entries, 'someone-else'), now });
    expect(await first.getCredentials()).toBe(await second.getCredentials());
    expect(await other.getCredentials()).not.toBe(await first.getCredentials());
    await Promise.all([first.close?.(), second.close?.(), other.close?.()]);
    expect(() => factory.create({ config: oidcConfig({ 'client-id': 'c' }), now })).toThrow(
      'must provide idp-issuer-url',
    );
  });
});

describe('OidcCredentialProvider through an HTTPS_PROXY with credentials', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const name of ['HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  const refreshThrough = async (proxyUrl: string) => {
    process.env.HTTPS_PROXY = proxyUrl;
    delete process.env.NO_PROXY;
    delete process.env.no_proxy;
    const provider = new OidcCredentialProvider(
      oidcConfig({
        'idp-issuer-url': 'https://issuer.k-test.invalid',
        'client-id': 'c',
        'id-token': expiredToken(),
        'refresh-token': 'rt',
      }),
      { requestTimeoutMs: 10_000 },
    );
    try {
      return await failure(provider.getCredentials());
    } finally {
      await provider.close();
    }
  };

  it('a proxy that refuses connections: no error holds the proxy password', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    const error = await refreshThrough(`http://user:pa55-w0rd@127.0.0.1:${port}`);
    expect(error.code).toBe('ERR_TRANSPORT_OIDC_DISCOVERY');
    expect(secretLeaks(error, ['pa55-w0rd'])).toEqual([]);
  });

  it('a proxy that answers 407 (a fake proxy): no error holds the proxy password', async () => {
    const sockets = new Set<Socket>();
    const proxy = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.once('data', () =>
        socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n'),
      );
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    try {
      const port = (proxy.address() as AddressInfo).port;
      const error = await refreshThrough(`http://user:pa55-w0rd@127.0.0.1:${port}`);
      expect(error.code).toBe('ERR_TRANSPORT_OIDC_DISCOVERY');
      expect(
        secretLeaks(error, ['pa55-w0rd', Buffer.from('user:pa55-w0rd').toString('base64')]),
      ).toEqual([]);
    } finally {
      for (const socket of sockets) socket.destroy();
      proxy.close();
    }
  });
});
