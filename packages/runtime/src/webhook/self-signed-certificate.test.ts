import { execFileSync } from 'node:child_process';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { caught } from '@k/test-utils';
import { describe, expect, it } from 'vitest';
import { RuntimeError } from '../errors.js';
import {
  createSelfSignedCertificate,
  integer,
  ipBytes,
  oid,
  tagged,
  time,
} from './self-signed-certificate.js';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

describe('the DER pieces', () => {
  it('encodes lengths short and long form', () => {
    expect(hex(tagged(0x04, new Uint8Array(3)))).toBe('0403000000');
    expect(hex(tagged(0x04, new Uint8Array(200))).slice(0, 6)).toBe('0481c8');
    expect(hex(tagged(0x04, new Uint8Array(300))).slice(0, 8)).toBe('0482012c');
  });

  it('encodes integers minimally, positive', () => {
    expect(hex(integer(Uint8Array.of(2)))).toBe('020102');
    expect(hex(integer(Uint8Array.of(0, 0, 5)))).toBe('020105');
    expect(hex(integer(Uint8Array.of(0x80)))).toBe('02020080');
    expect(hex(integer(Uint8Array.of(0)))).toBe('020100');
  });

  it('encodes object identifiers (known encodings from X.690 and RFC 5480)', () => {
    expect(hex(oid('2.5.29.17'))).toBe('0603551d11');
    expect(hex(oid('1.2.840.10045.4.3.2'))).toBe('06082a8648ce3d040302');
    expect(hex(oid('1.3.6.1.5.5.7.3.1'))).toBe('06082b06010505070301');
  });

  it('writes UTCTime before 2050 and GeneralizedTime from 2050 on', () => {
    expect(Buffer.from(time(new Date('2049-12-31T23:59:59.500Z'))).toString('latin1')).toBe(
      '\x17\x0d491231235959Z',
    );
    expect(Buffer.from(time(new Date('2050-01-01T00:00:00Z'))).toString('latin1')).toBe(
      '\x18\x0f20500101000000Z',
    );
  });

  it('expands IPv4 and IPv6 addresses to their bytes', () => {
    expect(hex(ipBytes('10.0.0.255'))).toBe('0a0000ff');
    expect(hex(ipBytes('::1'))).toBe('00000000000000000000000000000001');
    expect(hex(ipBytes('fe80::1:2'))).toBe('fe800000000000000000000000010002');
    expect(hex(ipBytes('2001:db8::'))).toBe('20010db8000000000000000000000000');
    expect(hex(ipBytes('::ffff:192.168.1.2'))).toBe('00000000000000000000ffffc0a80102');
    expect(hex(ipBytes('1:2:3:4:5:6:7:8'))).toBe('00010002000300040005000600070008');
  });
});

describe('createSelfSignedCertificate', () => {
  const hosts = ['webhook.demo.svc', 'localhost', '127.0.0.1', '::1'];
  const made = createSelfSignedCertificate({
    hosts,
    now: () => Date.parse('2026-03-01T00:00:00Z'),
  });
  const certificate = new X509Certificate(made.certPem);

  it('is a certificate node:crypto parses, signed by its own key, for its hosts', () => {
    expect(certificate.verify(certificate.publicKey)).toBe(true);
    expect(certificate.checkPrivateKey(createPrivateKey(made.keyPem))).toBe(true);
    expect(certificate.subject).toBe('CN=webhook.demo.svc');
    expect(certificate.issuer).toBe(certificate.subject);
    expect(certificate.checkHost('webhook.demo.svc')).toBe('webhook.demo.svc');
    expect(certificate.checkHost('localhost')).toBe('localhost');
    expect(certificate.checkHost('other.demo.svc')).toBeUndefined();
    expect(certificate.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(certificate.checkIP('::1')).toBe('::1');
    expect(certificate.checkIP('10.0.0.1')).toBeUndefined();
    expect(certificate.ca).toBe(false);
    expect(certificate.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(certificate.publicKey.asymmetricKeyDetails).toEqual({ namedCurve: 'prime256v1' });
    expect(new Date(certificate.validFrom).toISOString()).toBe('2026-02-28T23:59:00.000Z');
    expect(new Date(certificate.validTo).toISOString()).toBe('2027-03-01T00:00:00.000Z');
  });

  it('gives its PEM as the authority and the caBundle as base64 of that PEM', () => {
    expect(made.caPem).toBe(made.certPem);
    expect(Buffer.from(made.caBundle, 'base64').toString()).toBe(made.certPem);
  });

  it('passes openssl verify as a TLS server certificate (openssl is the oracle)', () => {
    const directory = mkdtempSync(join(tmpdir(), 'k-self-signed-'));
    try {
      const file = join(directory, 'tls.crt');
      writeFileSync(file, made.certPem);
      const verified = execFileSync(
        'openssl',
        [
          'verify',
          '-CAfile',
          file,
          '-purpose',
          'sslserver',
          '-verify_hostname',
          'webhook.demo.svc',
          file,
        ],
        { encoding: 'utf8', stdio: 'pipe' },
      );
      expect(verified.trim()).toBe(`${file}: OK`);
      const text = execFileSync('openssl', ['x509', '-in', file, '-noout', '-text'], {
        encoding: 'utf8',
      });
      expect(text).toContain('Version: 3 (0x2)');
      expect(text).toMatch(/Basic Constraints: critical\s+CA:FALSE/);
      expect(text).toMatch(/Key Usage: critical\s+Digital Signature\n/);
      expect(text).toContain(
        'DNS:webhook.demo.svc, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1',
      );
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('is trusted by a real https client given caPem as its ca', async () => {
    const local = createSelfSignedCertificate({ hosts: ['localhost', '127.0.0.1'] });
    const server = createServer({ cert: local.certPem, key: local.keyPem }, (_, response) =>
      response.end('ok'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      for (const host of ['127.0.0.1', 'localhost']) {
        const body = await new Promise<string>((resolve, reject) => {
          request(
            {
              host: '127.0.0.1',
              servername: host === 'localhost' ? host : undefined,
              port,
              ca: local.caPem,
            },
            (response) => {
              let text = '';
              response.on('data', (chunk: Buffer) => (text += chunk.toString()));
              response.on('end', () => resolve(text));
            },
          )
            .on('error', reject)
            .end();
        });
        expect(body).toBe('ok');
      }
      // Another self-signed certificate is not trusted by this one's authority.
      const stranger = createSelfSignedCertificate({ hosts: ['127.0.0.1'] });
      const error = await new Promise<Error>((resolve) => {
        request({ host: '127.0.0.1', port, ca: stranger.caPem }, () =>
          resolve(new Error('trusted')),
        )
          .on('error', resolve)
          .end();
      });
      expect((error as NodeJS.ErrnoException).code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    } finally {
      server.close();
    }
  });

  it('makes a new key and serial each time', () => {
    const other = createSelfSignedCertificate({ hosts });
    expect(other.keyPem).not.toBe(made.keyPem);
    expect(new X509Certificate(other.certPem).serialNumber).not.toBe(certificate.serialNumber);
  });

  it.each([
    [[]],
    [['bad host!']],
    [['a'.repeat(254)]],
    [['ok', 'under_score']],
    [Array.from({ length: 101 }, (_, index) => `h${index}`)],
  ])('refuses hosts %j with ERR_RUNTIME_WEBHOOK_CERTIFICATE', async (bad) => {
    const error = await caught(() => createSelfSignedCertificate({ hosts: bad }));
    expect(RuntimeError.isInstance(error) && error.code).toBe('ERR_RUNTIME_WEBHOOK_CERTIFICATE');
  });

  it('refuses a validity that is not 1 to 3650 whole days', async () => {
    for (const validityDays of [0, 1.5, 4000]) {
      const error = await caught(() => createSelfSignedCertificate({ hosts, validityDays }));
      expect(RuntimeError.isInstance(error) && error.code).toBe('ERR_RUNTIME_WEBHOOK_CERTIFICATE');
    }
  });
});
