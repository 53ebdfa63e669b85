import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeconfigError } from '../errors.js';
import { loadKubeconfig } from '../load/load-kubeconfig.js';
import type { TempFiles } from '../testing/temp-files.js';
import { createTempFiles } from '../testing/temp-files.js';
import { flattenKubeconfig } from './flatten-kubeconfig.js';

let files: TempFiles;
beforeEach(() => {
  files = createTempFiles();
});
afterEach(() => files.cleanup());

async function load(content: string) {
  const explicitPath = files.write('sub/config', content);
  return loadKubeconfig({ explicitPath, resolvePaths: false });
}

describe('flattenKubeconfig', () => {
  it("inlines files relative to the defining file's directory and drops the paths", async () => {
    files.write('sub/ca.crt', 'CA');
    files.write('cert.pem', 'CERT');
    files.write('abs/key.pem', new Uint8Array([0, 255]));
    const loaded = await load(`
clusters: [{name: c, cluster: {server: s, certificate-authority: ca.crt}}]
users: [{name: u, user: {client-certificate: ../cert.pem, client-key: ${files.path('abs/key.pem')}, tokenFile: token}}]
`);
    const flat = await flattenKubeconfig(loaded.config, loaded.origins, { cwd: '/' });
    const cluster = flat.clusters.get('c');
    expect(cluster?.certificateAuthority).toBeUndefined();
    expect(Buffer.from(cluster?.certificateAuthorityData ?? []).toString()).toBe('CA');
    const user = flat.users.get('u');
    expect(Buffer.from(user?.clientCertificateData ?? []).toString()).toBe('CERT');
    expect([...(user?.clientKeyData ?? [])]).toEqual([0, 255]);
    expect(user?.clientCertificate).toBeUndefined();
    expect(user?.tokenFile).toBe('token'); // kubectl does not inline token files
    expect(loaded.config.clusters.get('c')?.certificateAuthority).toBe('ca.crt');
  });

  it('refuses a path together with data, as kubectl does', async () => {
    files.write('sub/ca.crt', 'CA');
    const loaded = await load(
      'clusters: [{name: c, cluster: {certificate-authority: ca.crt, certificate-authority-data: aGVsbG8=}}]',
    );
    const error = await flattenKubeconfig(loaded.config, loaded.origins).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeconfigError);
    expect((error as KubeconfigError).code).toBe('ERR_CONFIG_INVALID');
    expect((error as KubeconfigError).message).toContain(
      'cannot have values for both path and contents',
    );
  });

  it('names the missing file and never its content', async () => {
    const loaded = await load('users: [{name: u, user: {client-key: missing.pem}}]');
    const error = (await flattenKubeconfig(loaded.config, loaded.origins).catch(
      (e: unknown) => e,
    )) as KubeconfigError;
    expect(error.code).toBe('ERR_CONFIG_READ');
    expect(error.message).toBe(
      `cannot flatten user "u": open ${files.path('sub/missing.pem')}: no such file or directory`,
    );
  });
});
