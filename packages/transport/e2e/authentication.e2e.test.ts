import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ResolvedConfig } from '@k/config';
import { controlPlane, useTestNamespace } from '@k/testenv/vitest';
import { describe, expect, it } from 'vitest';
import { ConnectionPools } from '../src/connection.js';
import { TokenCredentialProviderFactory, builtinCredentialProviderFactories } from '../src/auth.js';
import { createTransport } from '../src/index.js';
import { resolvedContext, sendJson, whoAmI } from './support/cluster.js';

describe('authentication against the real API server', () => {
  it('authenticates admin by client certificate, tester by token; alice gets 403', async () => {
    const admin = createTransport(await resolvedContext('admin'));
    const tester = createTransport(await resolvedContext('tester'));
    const alice = createTransport(await resolvedContext('alice'));
    try {
      expect((await sendJson(admin, 'GET', '/api/v1/namespaces/kube-system')).status).toBe(200);
      expect((await whoAmI(admin)).groups).toContain('system:masters');
      expect((await sendJson(tester, 'GET', '/api/v1/namespaces/default/configmaps')).status).toBe(
        200,
      );
      expect((await whoAmI(tester)).username).toBe('tester');
      const forbidden = await sendJson(alice, 'GET', '/api/v1/namespaces/default/configmaps');
      expect(forbidden.status).toBe(403);
      expect(forbidden.body).toMatchObject({ kind: 'Status', reason: 'Forbidden' });
    } finally {
      await Promise.all([admin.close(), tester.close(), alice.close()]);
    }
  });

  it('verifies the server certificate, against tls-server-name when set', async () => {
    const admin = await resolvedContext('admin');
    const byName = createTransport({
      ...admin,
      tls: { ...admin.tls, serverName: 'kubernetes.default.svc' },
    });
    expect((await sendJson(byName, 'GET', '/version')).status).toBe(200);
    await byName.close();

    const wrongName = createTransport({
      ...admin,
      tls: { ...admin.tls, serverName: 'wrong.example.com' },
    });
    await expect(sendJson(wrongName, 'GET', '/version')).rejects.toMatchObject({
      code: 'ERR_TLS_CERT_ALTNAME_INVALID',
    });
    await wrongName.close();

    const withoutCa = { ...admin.tls };
    delete withoutCa.caData;
    const systemRoots = createTransport({ ...admin, tls: withoutCa });
    await expect(sendJson(systemRoots, 'GET', '/version')).rejects.toMatchObject({
      code: expect.stringMatching(/UNABLE_TO_VERIFY|SELF_SIGNED|UNABLE_TO_GET_ISSUER/) as string,
    });
    await systemRoots.close();

    const insecure = createTransport({ ...admin, tls: { ...withoutCa, insecure: true } });
    expect((await sendJson(insecure, 'GET', '/version')).status).toBe(200);
    await insecure.close();
  });

  it('presents rotated client certificate files on new connections', async () => {
    const { users } = controlPlane();
    const directory = mkdtempSync(join(tmpdir(), 'k-cert-rotation-'));
    const certFile = join(directory, 'client.crt');
    const keyFile = join(directory, 'client.key');
    writeFileSync(certFile, users.admin.certPem);
    writeFileSync(keyFile, users.admin.keyPem);
    const admin = await resolvedContext('admin');
    const transport = createTransport(
      {
        ...admin,
        tls: { caData: admin.tls.caData, certFile, keyFile, insecure: false },
        auth: { kind: 'none' },
      },
      // Short idle timeout: the test waits for the old connection to close instead of a restart.
      {
        keepAliveTimeoutMs: 200,
        clientCertificateReloadIntervalMs: 100,
        connectionPools: new ConnectionPools(),
      },
    );
    try {
      expect((await sendJson(transport, 'GET', '/api/v1/namespaces/kube-system')).status).toBe(200);
      writeFileSync(certFile, users.alice.certPem);
      writeFileSync(keyFile, users.alice.keyPem);
      await sleep(400);
      expect((await sendJson(transport, 'GET', '/api/v1/namespaces/kube-system')).status).toBe(403);
      expect((await whoAmI(transport)).username).toBe('alice');
    } finally {
      await transport.close();
    }
  });

  describe('token file rotation', () => {
    const namespace = useTestNamespace({ prefix: 'token-file' });

    it('uses the rotated token after the re-read window (window shortened for the test)', async () => {
      const admin = createTransport(await resolvedContext('admin'));
      const request = await sendJson<{ status: { token: string } }>(
        admin,
        'POST',
        `/api/v1/namespaces/${namespace.name}/serviceaccounts/default/token`,
        { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} },
      );
      await admin.close();
      expect(request.status).toBe(201);

      const directory = mkdtempSync(join(tmpdir(), 'k-token-file-'));
      const tokenFile = join(directory, 'token');
      writeFileSync(tokenFile, `${controlPlane().users.tester.token}\n`);
      const tester = await resolvedContext('tester');
      const config: ResolvedConfig = { ...tester, auth: { kind: 'token', tokenFile } };
      const transport = createTransport(config, {
        credentialProviderFactories: [
          new TokenCredentialProviderFactory({ refreshIntervalMs: 1_000 }),
          ...builtinCredentialProviderFactories().filter((factory) => factory.kind !== 'token'),
        ],
        builtinCredentialProviders: false,
      });
      try {
        expect((await whoAmI(transport)).username).toBe('tester');
        writeFileSync(tokenFile, request.body.status.token);
        // Within the window the cached token is still used…
        expect((await whoAmI(transport)).username).toBe('tester');
        await sleep(1_100);
        // …and the next request after it re-reads the file.
        expect((await whoAmI(transport)).username).toBe(
          `system:serviceaccount:${namespace.name}:default`,
        );
      } finally {
        await transport.close();
      }
    });
  });

  it('decodes gzip-compressed responses (the server compresses bodies over 128 KiB)', async () => {
    const admin = createTransport(await resolvedContext('admin'));
    const name = `big-${Date.now()}`;
    const data = { blob: 'k'.repeat(300_000) };
    try {
      const created = await sendJson(admin, 'POST', '/api/v1/namespaces/default/configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name },
        data,
      });
      expect(created.status).toBe(201);
      const response = await admin.request({
        method: 'GET',
        path: `/api/v1/namespaces/default/configmaps/${name}`,
        headers: { accept: 'application/json' },
      });
      const body = (await response.body.json()) as { data: typeof data };
      expect(body.data).toEqual(data);
      expect(response.headers['content-encoding']).toBeUndefined();

      // The same request asking for gzip itself gets the raw compressed body: proof the server compressed.
      const raw = await admin.request({
        method: 'GET',
        path: `/api/v1/namespaces/default/configmaps/${name}`,
        headers: { accept: 'application/json', 'accept-encoding': 'gzip' },
      });
      expect(raw.headers['content-encoding']).toBe('gzip');
      await raw.body.dump();
    } finally {
      await sendJson(admin, 'DELETE', `/api/v1/namespaces/default/configmaps/${name}`);
      await admin.close();
    }
  });
});
