import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { ResolvedConfig } from '@k/config';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CredentialProvider, Credentials } from '../auth/credential-provider.js';
import { ConnectionPools } from '../transport/connection-pools.js';
import { createTransport } from '../transport/create-transport.js';

/** A scripted provider: hands out `token-<generation>`, counts calls, decides on invalidate. */
class ScriptedProvider implements CredentialProvider {
  readonly kind = 'scripted';
  generation = 1;
  calls = 0;
  invalidated: Credentials[] = [];
  replay = true;
  failWith: Error | undefined;
  delayMs = 0;

  async getCredentials(): Promise<Credentials> {
    this.calls += 1;
    if (this.delayMs) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (this.failWith) throw this.failWith;
    return { authorization: `Bearer token-${this.generation}` };
  }

  invalidate(rejected: Credentials): boolean {
    this.invalidated.push(rejected);
    this.generation += 1;
    return this.replay;
  }
}

describe('auth interceptor against a fake HTTP server (the real one cannot script 401-then-200)', () => {
  let server: Server;
  let origin: string;
  let accepted = 'Bearer token-2';
  const seen: {
    authorization: string | undefined;
    body: string;
    userAgent: string | undefined;
    impersonateUser: string | string[] | undefined;
    acceptEncoding: string | undefined;
  }[] = [];
  const pools = new ConnectionPools();
  let provider: ScriptedProvider;

  beforeAll(async () => {
    server = createServer((request: IncomingMessage, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        seen.push({
          authorization: request.headers.authorization,
          body: Buffer.concat(chunks).toString(),
          userAgent: request.headers['user-agent'],
          impersonateUser: request.headers['impersonate-user'],
          acceptEncoding: request.headers['accept-encoding'],
        });
        const ok = request.headers.authorization === accepted;
        response.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ ok, attempt: seen.length }));
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.close();
    await once(server, 'close');
  });

  beforeEach(() => {
    seen.length = 0;
    accepted = 'Bearer token-2';
    provider = new ScriptedProvider();
  });

  function transport(impersonation?: ResolvedConfig['impersonation']) {
    const config: ResolvedConfig = {
      server: origin,
      contextName: 'c',
      clusterName: 'c',
      userName: 'u',
      namespace: 'default',
      namespaceExplicit: false,
      tls: { insecure: false },
      auth: { kind: 'auth-provider', name: 'scripted', config: new Map(), userName: 'u' },
      disableCompression: false,
      source: 'kubeconfig',
      ...(impersonation ? { impersonation } : {}),
    };
    return createTransport(config, {
      connectionPools: pools,
      credentialProviderFactories: [{ kind: 'scripted', create: () => provider }],
    });
  }

  it('replays a request with a string body once with fresh credentials after a 401', async () => {
    const client = transport();
    const response = await client.request({ method: 'POST', path: '/', body: 'payload' });
    expect(response.statusCode).toBe(200);
    expect(await response.body.json()).toEqual({ ok: true, attempt: 2 });
    expect(provider.invalidated).toEqual([{ authorization: 'Bearer token-1' }]);
    expect(seen.map((request) => [request.authorization, request.body])).toEqual([
      ['Bearer token-1', 'payload'],
      ['Bearer token-2', 'payload'],
    ]);
    // The replay is the same decorated request: the outer interceptors ran once, before auth.
    expect(seen[1]?.userAgent).toBe(seen[0]?.userAgent);
    await client.close();
  });

  it('interceptor order: a replay resends the decorated request once, below impersonation and user agent', async () => {
    const client = transport({ user: 'jane', groups: [], extra: new Map() });
    const response = await client.request({ method: 'GET', path: '/' });
    expect(response.statusCode).toBe(200);
    await response.body.dump();
    // Impersonation and user agent (outside auth) decorate once; both attempts carry them
    // exactly once, and compression (inside auth) asks for gzip on each attempt.
    expect(
      seen.map((request) => [
        request.authorization,
        request.impersonateUser,
        request.acceptEncoding,
      ]),
    ).toEqual([
      ['Bearer token-1', 'jane', 'gzip'],
      ['Bearer token-2', 'jane', 'gzip'],
    ]);
    expect(seen[0]?.userAgent).toMatch(/^k\//);
    await client.close();
  });

  it('returns the 401 (body intact) when the provider says fresh credentials will not help', async () => {
    provider.replay = false;
    const client = transport();
    const response = await client.request({ method: 'GET', path: '/' });
    expect(response.statusCode).toBe(401);
    expect(await response.body.json()).toEqual({ ok: false, attempt: 1 });
    expect(seen).toHaveLength(1);
    await client.close();
  });

  it('replays at most once', async () => {
    accepted = 'never';
    const client = transport();
    const response = await client.request({ method: 'GET', path: '/' });
    expect(response.statusCode).toBe(401);
    await response.body.dump();
    expect(seen).toHaveLength(2);
    expect(provider.invalidated).toHaveLength(1);
    await client.close();
  });

  it('does not replay a streamed body, but still invalidates the rejected credentials', async () => {
    const client = transport();
    const response = await client.request({
      method: 'POST',
      path: '/',
      body: Readable.from([Buffer.from('streamed')]),
    });
    expect(response.statusCode).toBe(401);
    await response.body.dump();
    expect(seen).toHaveLength(1);
    expect(provider.invalidated).toHaveLength(1);
    const next = await client.request({ method: 'GET', path: '/' });
    expect(next.statusCode).toBe(200);
    await next.body.dump();
    await client.close();
  });

  it('leaves requests that carry their own Authorization alone (B4)', async () => {
    const client = transport();
    const response = await client.request({
      method: 'GET',
      path: '/',
      headers: { authorization: 'Bearer mine' },
    });
    expect(response.statusCode).toBe(401);
    await response.body.dump();
    expect(provider.calls).toBe(0);
    expect(provider.invalidated).toHaveLength(0);
    expect(seen.map((request) => request.authorization)).toEqual(['Bearer mine']);
    await client.close();
  });

  it('fails the request with a typed error when the provider fails, naming the provider', async () => {
    provider.failWith = new Error('vault is sealed');
    const client = transport();
    await expect(client.request({ method: 'GET', path: '/' })).rejects.toMatchObject({
      code: 'ERR_TRANSPORT_CREDENTIALS',
      message: 'getting credentials from the "scripted" credential provider: vault is sealed',
    });
    expect(seen).toHaveLength(0);
    await client.close();
  });

  it('aborts while credentials are being fetched', async () => {
    provider.delayMs = 200;
    const client = transport();
    const pending = client.request({ method: 'GET', path: '/', signal: AbortSignal.timeout(20) });
    await expect(pending).rejects.toMatchObject({
      name: expect.stringMatching(/Abort|Timeout/) as string,
    });
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(seen).toHaveLength(0);
    await client.close();
  });
});
