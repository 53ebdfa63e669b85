import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ControlPlaneError } from './errors.js';
import { generatePki } from './pki.js';

const execFileAsync = promisify(execFile);
const dir = await mkdtemp(join(tmpdir(), 'k-testenv-pki-'));
afterAll(() => rm(dir, { recursive: true, force: true }));
const pki = await generatePki(join(dir, 'pki'));

describe('generatePki', () => {
  it('issues a serving certificate for loopback and the in-cluster names, signed by the CA', async () => {
    const server = new X509Certificate(await readFile(pki.serverCertPath));
    const ca = new X509Certificate(pki.caPem);
    expect(server.verify(ca.publicKey)).toBe(true);
    expect(ca.ca).toBe(true);
    expect(server.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(server.checkIP('::1')).toBeDefined();
    expect(server.checkHost('localhost')).toBe('localhost');
    expect(server.checkHost('kubernetes.default.svc')).toBe('kubernetes.default.svc');
    expect(server.checkIP('10.0.0.1')).toBe('10.0.0.1');
    expect(server.checkIP('192.168.1.1')).toBeUndefined();
  });

  it('issues client certificates whose subject makes admin a system:master and alice nobody', async () => {
    const admin = new X509Certificate(pki.admin.certPem);
    const alice = new X509Certificate(pki.alice.certPem);
    expect(admin.subject).toContain('O=system:masters');
    expect(admin.subject).toContain('CN=admin');
    expect(alice.subject).toContain('CN=alice');
    expect(alice.subject).not.toContain('system:masters');
    const { stdout } = await execFileAsync('openssl', [
      'verify',
      '-CAfile',
      pki.caCertPath,
      pki.admin.certPath,
      pki.alice.certPath,
    ]);
    expect(stdout).toContain(`${pki.admin.certPath}: OK`);
    expect(stdout).toContain(`${pki.alice.certPath}: OK`);
    expect(admin.keyUsage).toContain('1.3.6.1.5.5.7.3.2');
  });

  it('issues kwok a kubelet serving certificate for loopback and the apiserver a kubelet client one', async () => {
    const ca = new X509Certificate(pki.caPem);
    const kubelet = new X509Certificate(await readFile(pki.kubeletServingCertPath));
    expect(kubelet.verify(ca.publicKey)).toBe(true);
    expect(kubelet.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(kubelet.keyUsage).toContain('1.3.6.1.5.5.7.3.1');
    const client = new X509Certificate(await readFile(pki.apiServerKubeletClientCertPath));
    expect(client.verify(ca.publicKey)).toBe(true);
    expect(client.keyUsage).toContain('1.3.6.1.5.5.7.3.2');
  });

  it('signs the front-proxy client with its own CA, not the client CA', async () => {
    const client = new X509Certificate(await readFile(pki.frontProxyClientCertPath));
    expect(
      client.verify(new X509Certificate(await readFile(pki.frontProxyCaCertPath)).publicKey),
    ).toBe(true);
    expect(client.verify(new X509Certificate(pki.caPem).publicKey)).toBe(false);
  });

  it('writes a service-account key pair', async () => {
    expect(await readFile(pki.serviceAccountKeyPath, 'utf8')).toContain('BEGIN PRIVATE KEY');
    expect(await readFile(pki.serviceAccountPublicKeyPath, 'utf8')).toContain('BEGIN PUBLIC KEY');
  });

  it('fails with PKI_FAILED when openssl cannot run', async () => {
    const error = await generatePki(join(dir, 'broken'), '/nonexistent/openssl').catch(
      (caught: unknown) => caught,
    );
    expect(ControlPlaneError.isInstance(error) && error.code).toBe('PKI_FAILED');
  });
});
