import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { execConfig } from '../../e2e/fixtures/exec-plugin-script.js';
import { ExecPluginError } from '../errors.js';
import { buildExecCredentialRequest, execClusterInfo } from './build-exec-credential-request.js';

const exec = {
  command: 'plugin',
  apiVersion: 'client.authentication.k8s.io/v1beta1',
  provideClusterInfo: true,
};
const extension = {
  apiVersion: 'group/v1',
  kind: 'PluginConfig',
  spec: { audience: 'snorlax' },
};

describe('buildExecCredentialRequest', () => {
  it('D1: serializes kind, apiVersion and spec.interactive only, in client-go order', () => {
    expect(
      JSON.stringify(buildExecCredentialRequest('client.authentication.k8s.io/v1beta1', false)),
    ).toBe(
      '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","spec":{"interactive":false}}',
    );
  });

  it('D2: carries interactive true', () => {
    const request = buildExecCredentialRequest('client.authentication.k8s.io/v1', true);
    expect(request.spec).toEqual({ interactive: true });
  });

  it('D11: provideClusterInfo adds spec.cluster with the extension as config', async () => {
    const config = execConfig(
      exec,
      {
        server: 'foo',
        tls: { insecure: false, serverName: 'bar', caData: new TextEncoder().encode('baz') },
      },
      extension,
    );
    const cluster = await execClusterInfo(config, extension, 'plugin');
    expect(JSON.stringify(buildExecCredentialRequest(exec.apiVersion, false, cluster))).toBe(
      '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","spec":{"cluster":{"server":"foo","tls-server-name":"bar","certificate-authority-data":"YmF6","config":{"apiVersion":"group/v1","kind":"PluginConfig","spec":{"audience":"snorlax"}}},"interactive":false}}',
    );
  });

  it('includes insecure, proxy-url and disable-compression only when set, in struct order', async () => {
    const config = execConfig(exec, {
      server: 'https://example:6443',
      tls: { insecure: true },
      proxyUrl: 'socks5://proxy:1080',
      disableCompression: true,
    });
    expect(JSON.stringify(await execClusterInfo(config, undefined, 'plugin'))).toBe(
      '{"server":"https://example:6443","insecure-skip-tls-verify":true,"proxy-url":"socks5://proxy:1080","disable-compression":true}',
    );
    const plain = await execClusterInfo(execConfig(exec), undefined, 'plugin');
    expect(plain).toEqual({ server: 'https://127.0.0.1:6443' });
  });
});

describe('execClusterInfo with a CA file', () => {
  let directory: string | undefined;
  afterEach(() => {
    if (directory) rmSync(directory, { recursive: true, force: true });
    directory = undefined;
  });

  it('reads the CA file when only a path is configured', async () => {
    directory = mkdtempSync(join(tmpdir(), 'k-ca-'));
    const caFile = join(directory, 'ca.crt');
    writeFileSync(caFile, 'baz');
    const cluster = await execClusterInfo(
      execConfig(exec, { tls: { insecure: false, caFile } }),
      undefined,
      'plugin',
    );
    expect(cluster['certificate-authority-data']).toBe('YmF6');
  });

  it('prefers CA data over the file', async () => {
    const cluster = await execClusterInfo(
      execConfig(exec, {
        tls: {
          insecure: false,
          caFile: '/nonexistent/ca',
          caData: new TextEncoder().encode('qux'),
        },
      }),
      undefined,
      'plugin',
    );
    expect(cluster['certificate-authority-data']).toBe('cXV4');
  });

  it('fails with client-go message when the CA file is unreadable', async () => {
    const error = await execClusterInfo(
      execConfig(exec, { tls: { insecure: false, caFile: '/nonexistent/ca.crt' } }),
      undefined,
      'plugin',
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ExecPluginError);
    expect((error as ExecPluginError).code).toBe('ERR_TRANSPORT_EXEC_CLUSTER_INFO');
    expect((error as Error).message).toMatch(
      /^failed to load CA bundle for execProvider: .*\/nonexistent\/ca\.crt/,
    );
  });
});
