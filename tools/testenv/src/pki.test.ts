import { execFile } from 'node:child_process';
import { X509Certificate, createPublicKey } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ControlPlaneError } from './errors.js';
import {
  distinguishedName,
  generateKey,
  generatePki,
  issueClientCertificate,
  servingExtensions,
  signCertificate,
} from './pki.js';

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

describe('issueClientCertificate', () => {
  it('issues a client certificate with CN and one O per group, signed by the plane CA', async () => {
    const issued = await issueClientCertificate(pki.dir, {
      commonName: 'carol',
      organizations: ['team:a', 'system:authenticated-extra'],
    });
    const certificate = new X509Certificate(issued.certPem);
    expect(certificate.subject.split('\n')).toEqual([
      'O=team:a',
      'O=system:authenticated-extra',
      'CN=carol',
    ]);
    expect(certificate.ca).toBe(false);
    expect(certificate.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(await readFile(issued.keyPath, 'utf8')).toBe(issued.keyPem);
    expect(createPublicKey(issued.keyPem).equals(certificate.publicKey)).toBe(true);
    const { stdout } = await execFileAsync('openssl', [
      'verify',
      '-CAfile',
      pki.caCertPath,
      issued.certPath,
    ]);
    expect(stdout.trim()).toBe(`${issued.certPath}: OK`);
    // Inside the plane's PKI dir, so the run dir's removal takes it, and private to this user.
    expect(dirname(issued.certPath).startsWith(`${pki.dir}/client-`)).toBe(true);
    expect((await stat(dirname(issued.certPath))).mode & 0o777).toBe(0o700);
  });

  it('gives two users of one CA different keys and serials', async () => {
    const [first, second] = await Promise.all([
      issueClientCertificate(pki.dir, { commonName: 'same' }),
      issueClientCertificate(pki.dir, { commonName: 'same' }),
    ]);
    expect(first.keyPem).not.toBe(second.keyPem);
    expect(new X509Certificate(first.certPem).serialNumber).not.toBe(
      new X509Certificate(second.certPem).serialNumber,
    );
    expect(new X509Certificate(first.certPem).subject).toBe('CN=same');
  });

  it('keeps characters openssl treats specially in the subject as they were given', async () => {
    const issued = await issueClientCertificate(pki.dir, {
      commonName: 'system:serviceaccount:a/b+c\\d',
      organizations: ['x=y'],
    });
    // The DER strings themselves: every printer of subjects escapes these characters its own way.
    const { stdout } = await execFileAsync('openssl', ['asn1parse', '-in', issued.certPath]);
    const strings = [...stdout.matchAll(/UTF8STRING\s*:(.*)$/gm)].map((match) => match[1]);
    // Issuer, then subject.
    expect(strings).toEqual(['k-testenv-ca', 'x=y', 'system:serviceaccount:a/b+c\\d']);
  });

  it('refuses an empty or multi-line name with INVALID_OPTIONS before running openssl', async () => {
    for (const subject of [
      { commonName: '' },
      { commonName: 'eve\nO=system:masters' },
      { commonName: 'eve', organizations: [''] },
    ]) {
      const error = await issueClientCertificate(pki.dir, subject, '/nonexistent/openssl').catch(
        (caught: unknown) => caught,
      );
      expect(ControlPlaneError.isInstance(error) && error.code).toBe('INVALID_OPTIONS');
    }
  });

  it('says openssl is required when it cannot be run', async () => {
    const error = await issueClientCertificate(
      pki.dir,
      { commonName: 'dave' },
      '/nonexistent/openssl',
    ).catch((caught: unknown) => caught);
    expect(ControlPlaneError.isInstance(error) && error.code).toBe('PKI_FAILED');
    expect((error as Error).message).toContain('openssl is required');
  });
});

describe('signCertificate', () => {
  it('signs a serving certificate for the given SANs with any CA', async () => {
    const keyPath = join(dir, 'serving.key');
    const certPath = join(dir, 'serving.crt');
    await generateKey(keyPath);
    await signCertificate({
      caCertPath: pki.frontProxyCaCertPath,
      caKeyPath: join(pki.dir, 'front-proxy-ca.key'),
      keyPath,
      subject: distinguishedName({ commonName: 'webhook' }),
      extensions: servingExtensions(['DNS:localhost', 'IP:127.0.0.1', 'DNS:example.test']),
      certPath,
      days: 1,
    });
    const certificate = new X509Certificate(await readFile(certPath));
    expect(
      certificate.verify(new X509Certificate(await readFile(pki.frontProxyCaCertPath)).publicKey),
    ).toBe(true);
    expect(certificate.checkHost('example.test')).toBe('example.test');
    expect(certificate.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(certificate.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    const days = (Date.parse(certificate.validTo) - Date.parse(certificate.validFrom)) / 86_400_000;
    expect(days).toBe(1);
  });
});
