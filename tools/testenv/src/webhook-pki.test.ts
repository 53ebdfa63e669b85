import { execFile } from 'node:child_process';
import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ControlPlaneError } from './errors.js';
import { generatePki } from './pki.js';
import { WebhookPki, webhookSubjectAltNames } from './webhook-pki.js';

const execFileAsync = promisify(execFile);
const dir = await mkdtemp(join(tmpdir(), 'k-testenv-webhook-pki-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

const publicKeyOf = (keyPem: string) =>
  createPublicKey(createPrivateKey(keyPem)).export({ type: 'spki', format: 'pem' });

describe('WebhookPki', () => {
  it('issues a serving certificate for 127.0.0.1, localhost and the extra hosts, signed by its own CA', async () => {
    const pki = await WebhookPki.create(join(dir, 'sans'), {
      hosts: ['webhook.example.test', '10.1.2.3', '::1'],
    });
    const certificate = new X509Certificate(await readFile(pki.certPath));
    const ca = new X509Certificate(pki.caPem);
    expect(ca.ca).toBe(true);
    expect(certificate.verify(ca.publicKey)).toBe(true);
    expect(certificate.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(certificate.checkHost('localhost')).toBe('localhost');
    expect(certificate.checkHost('webhook.example.test')).toBe('webhook.example.test');
    expect(certificate.checkIP('10.1.2.3')).toBe('10.1.2.3');
    expect(certificate.checkIP('::1')).toBeDefined();
    expect(certificate.checkIP('10.9.9.9')).toBeUndefined();
    expect(certificate.keyUsage).toContain('1.3.6.1.5.5.7.3.1');
    expect(certificate.toString()).toBe(new X509Certificate(pki.certPem).toString());
    expect(publicKeyOf(await readFile(pki.keyPath, 'utf8'))).toBe(
      certificate.publicKey.export({ type: 'spki', format: 'pem' }),
    );
    expect((await stat(pki.dir)).mode & 0o777).toBe(0o700);
  });

  it('uses a CA of its own, not the control plane one', async () => {
    const plane = await generatePki(join(dir, 'plane'));
    const pki = await WebhookPki.create(join(dir, 'separate'));
    const certificate = new X509Certificate(pki.certPem);
    expect(certificate.verify(new X509Certificate(plane.caPem).publicKey)).toBe(false);
    expect(pki.caPem).not.toBe(plane.caPem);
  });

  it('rotates to a new key and serial from the same CA, leaving no work files behind', async () => {
    const pki = await WebhookPki.create(join(dir, 'rotate'));
    const before = new X509Certificate(pki.certPem);
    const keyBefore = pki.keyPem;
    await pki.rotate();
    const after = new X509Certificate(await readFile(pki.certPath));
    expect(after.serialNumber).not.toBe(before.serialNumber);
    expect(await readFile(pki.keyPath, 'utf8')).not.toBe(keyBefore);
    expect(after.toString()).toBe(new X509Certificate(pki.certPem).toString());
    const { stdout } = await execFileAsync('openssl', [
      'verify',
      '-CAfile',
      pki.caCertPath,
      pki.certPath,
    ]);
    expect(stdout).toContain(`${pki.certPath}: OK`);
    expect(publicKeyOf(pki.keyPem)).toBe(after.publicKey.export({ type: 'spki', format: 'pem' }));
    expect((await readdir(pki.dir)).sort()).toEqual(['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
  });

  it('replaces the files by rename: a reader polling during rotations only ever sees whole ones', async () => {
    const pki = await WebhookPki.create(join(dir, 'atomic'));
    let rotating = true;
    const serials = new Set<string>();
    let reads = 0;
    const reader = (async () => {
      while (rotating) {
        // Throws on a truncated or half-written PEM.
        const [certificate, key] = await Promise.all([
          readFile(pki.certPath, 'utf8'),
          readFile(pki.keyPath, 'utf8'),
        ]);
        serials.add(new X509Certificate(certificate).serialNumber);
        createPrivateKey(key);
        reads += 1;
      }
    })();
    // Serialized even when asked at once: every rotation completes.
    await Promise.all(Array.from({ length: 5 }, () => pki.rotate()));
    rotating = false;
    await reader;
    expect(reads).toBeGreaterThan(0);
    expect(serials.size).toBeGreaterThan(1);
    expect(publicKeyOf(await readFile(pki.keyPath, 'utf8'))).toBe(
      new X509Certificate(await readFile(pki.certPath)).publicKey.export({
        type: 'spki',
        format: 'pem',
      }),
    );
  });

  it('refuses a host that is neither an IP address nor a DNS name', () => {
    expect(webhookSubjectAltNames(['Example.TEST', '127.0.0.1'])).toEqual([
      'IP:127.0.0.1',
      'DNS:localhost',
      'DNS:example.test',
    ]);
    for (const host of ['a,DNS:evil', 'a\nb', '', 'under_score', 'x'.repeat(300)]) {
      let error: unknown;
      try {
        webhookSubjectAltNames([host]);
      } catch (caught) {
        error = caught;
      }
      expect(ControlPlaneError.isInstance(error) && error.code).toBe('INVALID_OPTIONS');
    }
  });

  it('fails with PKI_FAILED saying openssl is required when it is missing', async () => {
    const error = await WebhookPki.create(join(dir, 'no-openssl'), {
      openssl: '/nonexistent/openssl',
    }).catch((caught: unknown) => caught);
    expect(ControlPlaneError.isInstance(error) && error.code).toBe('PKI_FAILED');
    expect((error as Error).message).toContain('openssl is required');
  });
});
