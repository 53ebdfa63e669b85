import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { ResolvedConfig, TlsSettings } from '@k/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCertificates, type TestCertificates } from '@k/test-utils';
import { TRANSPORT_VERSION } from '../version.js';
import { ConnectionPools } from './connection-pools.js';
import { createTransport } from './create-transport.js';

const bytes = (text: string) => new TextEncoder().encode(text);

function config(
  overrides: Partial<ResolvedConfig> = {},
  tls: Partial<TlsSettings> = {},
): ResolvedConfig {
  return {
    server: 'https://127.0.0.1:6443',
    contextName: 'c',
    clusterName: 'c',
    userName: 'u',
    namespace: 'default',
    namespaceExplicit: false,
    tls: { insecure: false, ...tls },
    auth: { kind: 'none' },
    disableCompression: false,
    source: 'kubeconfig',
    ...overrides,
  };
}

describe('createTransport: TLS settings', () => {
  let pki: TestCertificates;
  const directory = mkdtempSync(join(tmpdir(), 'k-create-transport-'));
  const pools = new ConnectionPools();
  const build = (tls: Partial<TlsSettings>, overrides: Partial<ResolvedConfig> = {}) =>
    createTransport(config(overrides, tls), { connectionPools: pools });

  beforeAll(() => {
    pki = createTestCertificates();
  });

  it('refuses a CA together with insecure-skip-tls-verify', () => {
    expect(() => build({ insecure: true, caData: bytes(pki.caPem) })).toThrow(
      expect.objectContaining({
        code: 'ERR_TRANSPORT_TLS',
        message: 'specifying a root certificates file with the insecure flag is not allowed',
      }),
    );
  });

  it('refuses CA data that is not PEM certificates (C5)', () => {
    expect(() => build({ caData: bytes('not a certificate') })).toThrow(
      'unable to load root certificates from certificate-authority-data: unable to parse bytes as PEM block',
    );
    expect(() => build({ caData: bytes(`${pki.caPem}this is not valid`) })).toThrow(
      /unable to parse bytes as PEM block/,
    );
    expect(() => build({ caData: bytes(pki.serverKeyPem) })).toThrow(
      /no valid certificate authority data seen/,
    );
    const broken = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
    expect(() => build({ caData: bytes(broken) })).toThrow(/failed to parse certificate/);
  });

  it('lets data win over a bad file, for the CA and the key independently (C6)', async () => {
    const transport = build({
      caData: bytes(pki.caPem),
      caFile: '/does/not/exist',
      certData: bytes(pki.clientCertPem),
      keyData: bytes(pki.clientKeyPem),
      keyFile: '/does/not/exist',
    });
    await transport.close();
  });

  it('names an unreadable file', () => {
    expect(() => build({ caFile: join(directory, 'missing-ca.crt') })).toThrow(
      expect.objectContaining({
        code: 'ERR_TRANSPORT_FILE_READ',
        path: join(directory, 'missing-ca.crt'),
        message: `unable to read certificate-authority file "${join(directory, 'missing-ca.crt')}": ENOENT`,
      }),
    );
  });

  it('refuses a certificate with the wrong key, without showing the key (C7)', () => {
    const other = createTestCertificates();
    let message = '';
    try {
      build({ certData: bytes(pki.clientCertPem), keyData: bytes(other.clientKeyPem) });
    } catch (error) {
      expect(error).toMatchObject({ code: 'ERR_TRANSPORT_TLS' });
      message = (error as Error).message;
    }
    expect(message).toMatch(/^invalid client certificate\/key pair \(client-certificate-data\): /);
    expect(message).not.toContain('PRIVATE KEY');
    expect(() =>
      build({ certData: bytes(pki.clientCertPem), keyData: bytes('bad key data') }),
    ).toThrow(expect.objectContaining({ code: 'ERR_TRANSPORT_TLS' }));
  });

  it('reads certificate and key files (both files: reloaded as they rotate)', async () => {
    const certFile = join(directory, 'client.crt');
    const keyFile = join(directory, 'client.key');
    writeFileSync(certFile, pki.clientCertPem);
    writeFileSync(keyFile, pki.clientKeyPem);
    const transport = build({ caData: bytes(pki.caPem), certFile, keyFile });
    await transport.close();
  });

  it('shares one pool per TLS identity, not per credential (C12, TestTLSConfigKey)', async () => {
    const shared = new ConnectionPools();
    const make = (overrides: Partial<ResolvedConfig>, tls: Partial<TlsSettings> = {}) =>
      createTransport(config(overrides, { caData: bytes(pki.caPem), ...tls }), {
        connectionPools: shared,
      });
    const first = make({ auth: { kind: 'token', token: 'a' } });
    const second = make({ auth: { kind: 'basic', username: 'bob', password: 'p' } });
    const third = make({ impersonation: { user: 'x', groups: [], extra: new Map() } });
    expect(shared.size).toBe(1);
    const byName1 = make({}, { serverName: '1' });
    const byName2 = make({}, { serverName: '2' });
    const insecure = createTransport(config({}, { insecure: true }), { connectionPools: shared });
    const proxied = make({ proxyUrl: 'socks5://127.0.0.1:1080' });
    const uncompressed = make({ disableCompression: true });
    expect(shared.size).toBe(6);
    for (const transport of [
      first,
      second,
      third,
      byName1,
      byName2,
      insecure,
      proxied,
      uncompressed,
    ]) {
      await transport.close();
    }
    expect(shared.size).toBe(0);
  });
});

describe('createTransport against a fake HTTP server (to see the headers and gzip the real server hides)', () => {
  let server: Server;
  let origin: string;
  let connections = 0;
  const requests: IncomingHttpHeaders[] = [];
  const pools = new ConnectionPools();
  const large = JSON.stringify({ items: Array.from({ length: 2000 }, (_, index) => ({ index })) });

  beforeAll(async () => {
    server = createServer((request, response) => {
      requests.push(request.headers);
      if (request.url === '/gzip' && request.headers['accept-encoding'] === 'gzip') {
        response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        response.end(gzipSync(large));
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(request.url === '/gzip' ? large : '{}');
    });
    server.on('connection', () => (connections += 1));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.close();
    await once(server, 'close');
  });

  const get = async (
    overrides: Partial<ResolvedConfig>,
    path = '/',
    headers?: Record<string, string>,
  ) => {
    const transport = createTransport(config({ server: origin, ...overrides }), {
      connectionPools: pools,
      appName: 'unit-test',
    });
    const response = await transport.request({
      method: 'GET',
      path,
      ...(headers ? { headers } : {}),
    });
    const body = await response.body.text();
    await transport.close();
    return { response, body, headers: requests.at(-1) ?? {} };
  };

  it('sends user agent, gzip, impersonation and credentials on every request', async () => {
    const { headers } = await get({
      auth: { kind: 'token', token: 'secret' },
      impersonation: {
        user: 'jane',
        uid: '42',
        groups: ['a', 'b'],
        extra: new Map([['example.com/scope', ['x']]]),
      },
    });
    expect(headers['user-agent']).toMatch(
      new RegExp(
        `^k/${TRANSPORT_VERSION.replace(/\./g, '\\.')} \\([a-z0-9]+/[a-z0-9]+\\) unit-test$`,
      ),
    );
    expect(headers['accept-encoding']).toBe('gzip');
    expect(headers.authorization).toBe('Bearer secret');
    expect(headers['impersonate-user']).toBe('jane');
    expect(headers['impersonate-uid']).toBe('42');
    expect(headers['impersonate-group']).toBe('a, b');
    expect(headers['impersonate-extra-example.com%2fscope']).toBe('x');
  });

  it('decodes gzip responses, and asks for none with disable-compression', async () => {
    const compressed = await get({}, '/gzip');
    expect(compressed.headers['accept-encoding']).toBe('gzip');
    expect(compressed.response.headers['content-encoding']).toBeUndefined();
    expect(compressed.body).toBe(large);
    const plain = await get({ disableCompression: true }, '/gzip');
    expect(plain.headers['accept-encoding']).toBeUndefined();
    expect(plain.body).toBe(large);
    const own = await get({}, '/', { 'accept-encoding': 'identity' });
    expect(own.headers['accept-encoding']).toBe('identity');
  });

  it('reuses keep-alive connections for sequential requests', async () => {
    const transport = createTransport(config({ server: origin }), {
      connectionPools: new ConnectionPools(),
    });
    const before = connections;
    for (let index = 0; index < 20; index += 1) {
      const response = await transport.request({ method: 'GET', path: '/' });
      await response.body.dump();
      // undici frees a socket one event-loop turn after its response ended.
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(connections - before).toBe(1);
    // Back to back (next request in the same turn) a second socket is opened once, then reused.
    for (let index = 0; index < 20; index += 1) {
      const response = await transport.request({ method: 'GET', path: '/' });
      await response.body.dump();
    }
    expect(connections - before).toBeLessThanOrEqual(2);
    await transport.close();
  });

  it('refuses other origins, and requests after close', async () => {
    const transport = createTransport(
      config({ server: origin, auth: { kind: 'token', token: 't' } }),
      {
        connectionPools: pools,
      },
    );
    await expect(
      transport.request({ origin: 'http://example.com', method: 'GET', path: '/' }),
    ).rejects.toMatchObject({
      code: 'ERR_TRANSPORT_ORIGIN',
    });
    await transport.close();
    await expect(transport.request({ method: 'GET', path: '/' })).rejects.toMatchObject({
      code: 'ERR_TRANSPORT_CLOSED',
    });
  });
});
