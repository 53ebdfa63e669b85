import { X509Certificate } from 'node:crypto';
import { readFile, readdir, stat } from 'node:fs/promises';
import { createServer, get } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EnvtestError } from './errors.js';
import type { EnvironmentContext } from './internal/context.js';
import type { TestUser, WebhookServing } from './types.js';
import { createWebhookServing, installWebhooks } from './webhooks.js';

async function rejection(promise: Promise<unknown>): Promise<EnvtestError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!EnvtestError.isInstance(error))
    throw new Error(`expected an EnvtestError, got ${String(error)}`);
  return error;
}

const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );

/** handshake serves `serving`'s files on its port and GETs through TLS verified by its caPem. */
async function handshake(serving: WebhookServing): Promise<string> {
  const server = createServer(
    { cert: await readFile(serving.certPath), key: await readFile(serving.keyPath) },
    (_request, response) => response.end('ok'),
  );
  await new Promise<void>((resolve) => server.listen(serving.port, '127.0.0.1', resolve));
  try {
    return await new Promise<string>((resolve, reject) => {
      get(
        serving.url('/check', (server.address() as AddressInfo).port),
        { ca: serving.caPem },
        (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve(body));
        },
      ).on('error', reject);
    });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('createWebhookServing', () => {
  it('makes a CA and a loopback serving pair in a 0700 temp dir, with a free port and its URLs', async () => {
    await using serving = await createWebhookServing({ hosts: ['webhook.example.test'] });
    const directory = path.dirname(serving.certPath);
    expect(path.dirname(directory)).toBe(tmpdir());
    expect(path.basename(directory)).toMatch(/^k-envtest-webhook-/);
    expect((await stat(directory)).mode & 0o777).toBe(0o700);
    expect((await readdir(directory)).sort()).toEqual(['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
    expect(serving.host).toBe('127.0.0.1');
    expect(Number.isInteger(serving.port) && serving.port > 0).toBe(true);
    expect(serving.caBundle).toBe(Buffer.from(serving.caPem).toString('base64'));
    expect(await readFile(serving.certPath, 'utf8')).toBe(serving.certPem);
    expect(await readFile(serving.keyPath, 'utf8')).toBe(serving.keyPem);
    expect(new X509Certificate(serving.certPem).checkHost('webhook.example.test')).toBeDefined();
    expect(serving.url('/validate')).toBe(`https://127.0.0.1:${serving.port}/validate`);
    expect(serving.url('convert', 9443)).toBe('https://127.0.0.1:9443/convert');
    expect(await handshake(serving)).toBe('ok');
  });

  it('rotates to a new certificate that the same caBundle verifies', async () => {
    await using serving = await createWebhookServing();
    const [caBundle, before] = [serving.caBundle, serving.certPem];
    await serving.rotate();
    expect(serving.certPem).not.toBe(before);
    expect(await readFile(serving.certPath, 'utf8')).toBe(serving.certPem);
    expect(serving.caBundle).toBe(caBundle);
    expect(await handshake(serving)).toBe('ok');
  });

  it('close removes its directory, is idempotent, and rotate afterwards is refused', async () => {
    const serving = await createWebhookServing({ port: 9443 });
    expect(serving.port).toBe(9443);
    const directory = path.dirname(serving.certPath);
    await serving.close();
    await serving[Symbol.asyncDispose]();
    expect(await exists(directory)).toBe(false);
    expect((await rejection(serving.rotate())).code).toBe('ERR_ENVTEST_INVALID_OPTIONS');
  });

  it('refuses a port that is not a TCP port and a host that is not a name, leaving nothing behind', async () => {
    const before = (await readdir(tmpdir())).filter((name) =>
      name.startsWith('k-envtest-webhook-'),
    );
    expect((await rejection(createWebhookServing({ port: 70_000 }))).code).toBe(
      'ERR_ENVTEST_INVALID_OPTIONS',
    );
    const badHost = await rejection(createWebhookServing({ hosts: ['a,DNS:evil'] }));
    expect(badHost.code).toBe('ERR_ENVTEST_INVALID_OPTIONS');
    const after = (await readdir(tmpdir())).filter((name) => name.startsWith('k-envtest-webhook-'));
    expect(after.filter((name) => !before.includes(name))).toEqual([]);
  });
});

describe('installWebhooks, before anything is sent', () => {
  const context = { closeables: [] } as unknown as EnvironmentContext;
  const admin = {
    clientset: () => Promise.reject(new Error('nothing may be sent')),
  } as unknown as TestUser;

  it('needs at least one configuration', async () => {
    await using serving = await createWebhookServing();
    const error = await rejection(installWebhooks(context, admin, { serving }));
    expect(error.code).toBe('ERR_ENVTEST_INVALID_OPTIONS');
    expect(error.message).toContain('at least one webhook configuration');
  });

  it('refuses a configuration without a name, and a path that does not exist', async () => {
    await using serving = await createWebhookServing();
    const nameless = await rejection(
      installWebhooks(context, admin, { serving, validating: [{ metadata: {} }] }),
    );
    expect(nameless.message).toBe('a ValidatingWebhookConfiguration has no metadata.name');
    const missing = await rejection(
      installWebhooks(context, admin, { serving, paths: ['/nonexistent/manifests.yaml'] }),
    );
    expect(missing.code).toBe('ERR_ENVTEST_INVALID_OPTIONS');
    expect(missing.message).toContain('/nonexistent/manifests.yaml does not exist');
  });
});
