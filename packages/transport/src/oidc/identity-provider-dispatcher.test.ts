import { once } from 'node:events';
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { createTestCertificates } from '@k/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestThrough } from '../transport/undici-parts.js';
import { createIdentityProviderDispatcher } from './oidc-credential-provider.js';

// A local issuer that offers h2 and HTTP/1.1 in ALPN, as most identity providers do; the real
// kube-apiserver is no identity provider. undici 8 takes h2 when offered unless told not to.
describe('createIdentityProviderDispatcher against an issuer that offers h2', () => {
  let server: Http2SecureServer;
  let issuer = '';
  let caPem = '';
  beforeAll(async () => {
    const certificates = createTestCertificates(['IP:127.0.0.1']);
    caPem = certificates.caPem;
    server = createSecureServer(
      { key: certificates.serverKeyPem, cert: certificates.serverCertPem, allowHTTP1: true },
      (request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ httpVersion: request.httpVersion }));
      },
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.close();
    await once(server, 'close');
  });

  it('speaks HTTP/1.1, as to the API server (ADR 0012)', async () => {
    const dispatcher = createIdentityProviderDispatcher(issuer, Buffer.from(caPem));
    try {
      const response = await requestThrough(
        dispatcher,
        `${issuer}/.well-known/openid-configuration`,
        {
          method: 'GET',
        },
      );
      expect(await response.body.json()).toEqual({ httpVersion: '1.1' });
    } finally {
      await dispatcher.close();
    }
  });
});
