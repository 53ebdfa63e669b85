import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import type { ResolvedConfig } from '@k/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionPools } from '../src/connection.js';
import { createTransport } from '../src/index.js';
import { resolvedContext, sendJson, whoAmI } from './support/cluster.js';
import { secretLeaks } from './support/secret-leaks.js';
import {
  createTestCertificates,
  startHttpConnectProxy,
  startSocks5Proxy,
  type TestProxy,
} from '@k/test-utils';

describe('proxies in front of the real API server (small node:net proxies written for the test)', () => {
  let tester: ResolvedConfig;
  let port: string;
  const proxies: TestProxy[] = [];
  const start = async (proxy: Promise<TestProxy>) => {
    const started = await proxy;
    proxies.push(started);
    return started;
  };

  beforeAll(async () => {
    tester = await resolvedContext('tester');
    port = new URL(tester.server).port;
  });

  afterAll(async () => {
    await Promise.all(proxies.map((proxy) => proxy.close()));
  });

  const viaProxyUrl = async (proxyUrl: string) => {
    const transport = createTransport(
      { ...tester, proxyUrl },
      { connectionPools: new ConnectionPools() },
    );
    try {
      return await whoAmI(transport);
    } finally {
      await transport.close();
    }
  };

  it('tunnels through an HTTP CONNECT proxy given as proxy-url', async () => {
    const proxy = await start(startHttpConnectProxy());
    expect((await viaProxyUrl(proxy.url)).username).toBe('tester');
    expect(proxy.tunnels).toEqual([`127.0.0.1:${port}`]);
  });

  it('authenticates to an HTTP proxy with the credentials in proxy-url', async () => {
    const proxy = await start(
      startHttpConnectProxy({ username: 'proxy-user', password: 's3cret' }),
    );
    expect((await viaProxyUrl(proxy.url)).username).toBe('tester');
    expect(proxy.tunnels).toHaveLength(1);
    const wrong = proxy.url.replace('s3cret', 'wrong');
    const error = await viaProxyUrl(wrong).then(
      () => new Error('the proxy accepted wrong credentials'),
      (caught: unknown) => caught as Error,
    );
    expect(error).toMatchObject({ code: 'ERR_TRANSPORT_PROXY' });
    expect(error.message).toContain('407');
    expect(error.message).not.toContain('wrong');
  });

  it('no failed request through a proxy holds its password: refused, down, or an unusable URL', async () => {
    const password = 'pr0xy-pa55word';
    const failedWith = (proxyUrl: string) =>
      viaProxyUrl(proxyUrl).then(
        () => new Error(`${proxyUrl} worked`),
        (caught: unknown) => caught as Error,
      );
    const proxy = await start(startHttpConnectProxy({ username: 'proxy-user', password: 'other' }));
    const down = await start(startSocks5Proxy());
    await down.close();
    const refused = await failedWith(proxy.url.replace('other', password));
    expect(refused.message).toContain('407');
    const socks = await failedWith(down.url.replace('socks5://', `socks5://user:${password}@`));
    expect(socks.message).toContain('ECONNREFUSED');
    const unusable = await failedWith(`http://user:${password}@[not-a-host`);
    for (const error of [refused, socks, unusable]) {
      expect(error).toMatchObject({ code: 'ERR_TRANSPORT_PROXY' });
      expect(secretLeaks(error, [password])).toEqual([]);
    }
  });

  it('tunnels through an https proxy, verifying the proxy with the cluster CA bundle', async () => {
    // Go (and so client-go) trusts the cluster's CA for an https proxy too; a CA bundle in the
    // kubeconfig holding both the cluster CA and the proxy's CA is how a user makes that work.
    const certificates = createTestCertificates(['IP:127.0.0.1']);
    const proxy = await start(
      startHttpConnectProxy(undefined, {
        cert: certificates.serverCertPem,
        key: certificates.serverKeyPem,
      }),
    );
    const bundle = Buffer.concat([
      Buffer.from(tester.tls.caData!),
      Buffer.from(certificates.caPem),
    ]);
    const transport = createTransport(
      { ...tester, proxyUrl: proxy.url, tls: { ...tester.tls, caData: new Uint8Array(bundle) } },
      { connectionPools: new ConnectionPools() },
    );
    try {
      expect((await whoAmI(transport)).username).toBe('tester');
    } finally {
      await transport.close();
    }
    expect(proxy.url.startsWith('https://')).toBe(true);
    expect(proxy.tunnels).toEqual([`127.0.0.1:${port}`]);

    const untrusted = createTransport(
      { ...tester, proxyUrl: proxy.url },
      { connectionPools: new ConnectionPools() },
    );
    try {
      const error = await whoAmI(untrusted).then(
        () => new Error('an untrusted https proxy was accepted'),
        (caught: unknown) => caught as Error,
      );
      expect(error.message).not.toBe('an untrusted https proxy was accepted');
      expect(proxy.tunnels).toHaveLength(1);
    } finally {
      await untrusted.close();
    }
  });

  it('tunnels through a SOCKS5 proxy, without and with username/password', async () => {
    const open = await start(startSocks5Proxy());
    expect((await viaProxyUrl(open.url)).username).toBe('tester');
    expect(open.tunnels).toEqual([`127.0.0.1:${port}`]);

    const guarded = await start(startSocks5Proxy({ username: 'socks-user', password: 'pw' }));
    expect((await viaProxyUrl(guarded.url)).username).toBe('tester');
    expect(guarded.tunnels).toHaveLength(1);
    await expect(viaProxyUrl(guarded.url.replace(':pw@', ':bad@'))).rejects.toMatchObject({
      code: 'ERR_TRANSPORT_PROXY',
      message: expect.stringContaining('rejected the username and password') as string,
    });
  });

  describe('HTTPS_PROXY and NO_PROXY from the environment', () => {
    // Loopback is never proxied from the environment, so the server is addressed by this
    // machine's host name (which resolves to loopback here) and verified as `localhost`.
    let hostnameIsLoopback = false;
    beforeAll(async () => {
      const address = await lookup(hostname()).catch(() => undefined);
      hostnameIsLoopback = address?.address === '127.0.0.1';
    });

    const viaEnvironment = async (environment: NodeJS.ProcessEnv, server: string) => {
      const transport = createTransport(
        { ...tester, server, tls: { ...tester.tls, serverName: 'localhost' } },
        { environment, connectionPools: new ConnectionPools() },
      );
      try {
        return (await sendJson(transport, 'GET', '/version')).status;
      } finally {
        await transport.close();
      }
    };

    it('uses HTTPS_PROXY, unless NO_PROXY names the server; never for loopback', async () => {
      // Loopback addresses are never proxied, so the server is addressed by the machine's name.
      expect(hostnameIsLoopback, `${hostname()} must resolve to 127.0.0.1 for this test`).toBe(
        true,
      );
      const proxy = await start(startHttpConnectProxy());
      const byName = `https://${hostname()}:${port}`;
      expect(await viaEnvironment({ HTTPS_PROXY: proxy.url }, byName)).toBe(200);
      expect(proxy.tunnels).toEqual([`${hostname()}:${port}`]);

      expect(
        await viaEnvironment(
          { HTTPS_PROXY: proxy.url, NO_PROXY: `other.example,${hostname()}` },
          byName,
        ),
      ).toBe(200);
      expect(
        await viaEnvironment({ https_proxy: proxy.url, no_proxy: `${hostname()}:${port}` }, byName),
      ).toBe(200);
      expect(await viaEnvironment({ HTTPS_PROXY: proxy.url, NO_PROXY: '*' }, byName)).toBe(200);
      expect(await viaEnvironment({ HTTPS_PROXY: proxy.url }, `https://127.0.0.1:${port}`)).toBe(
        200,
      );
      expect(proxy.tunnels).toHaveLength(1);
    });

    it('ignores the environment when proxy-url is set', async () => {
      const environmentProxy = await start(startHttpConnectProxy());
      const configured = await start(startSocks5Proxy());
      const transport = createTransport(
        { ...tester, proxyUrl: configured.url },
        {
          environment: { HTTPS_PROXY: environmentProxy.url, NO_PROXY: '*' },
          connectionPools: new ConnectionPools(),
        },
      );
      expect((await whoAmI(transport)).username).toBe('tester');
      await transport.close();
      expect(configured.tunnels).toHaveLength(1);
      expect(environmentProxy.tunnels).toHaveLength(0);
    });
  });
});
