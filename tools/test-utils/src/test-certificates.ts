import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** TestCertificates are PEM texts of a throwaway CA, a server certificate and a client one. */
export interface TestCertificates {
  caPem: string;
  serverCertPem: string;
  serverKeyPem: string;
  clientCertPem: string;
  clientKeyPem: string;
}

/**
 * createTestCertificates generates, with the openssl CLI, a CA and a server certificate for
 * `serverNames` (`DNS:…`/`IP:…` SANs) plus a client certificate, all signed by the CA (EC P-256,
 * valid one day). Generated at test setup, never committed.
 */
export function createTestCertificates(
  serverNames: readonly string[] = ['DNS:localhost', 'IP:127.0.0.1'],
): TestCertificates {
  const directory = mkdtempSync(join(tmpdir(), 'k-test-pki-'));
  const path = (name: string) => join(directory, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  try {
    openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', path('ca.key'));
    openssl(
      'req',
      '-x509',
      '-new',
      '-key',
      path('ca.key'),
      '-subj',
      '/CN=k-test-ca',
      '-days',
      '1',
      '-out',
      path('ca.crt'),
    );
    const issue = (name: string, subject: string, extensions: string) => {
      openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', path(`${name}.key`));
      openssl(
        'req',
        '-new',
        '-key',
        path(`${name}.key`),
        '-subj',
        subject,
        '-out',
        path(`${name}.csr`),
      );
      writeFileSync(path(`${name}.ext`), extensions);
      openssl(
        'x509',
        '-req',
        '-in',
        path(`${name}.csr`),
        '-CA',
        path('ca.crt'),
        '-CAkey',
        path('ca.key'),
        '-CAcreateserial',
        '-days',
        '1',
        '-extfile',
        path(`${name}.ext`),
        '-out',
        path(`${name}.crt`),
      );
    };
    issue(
      'server',
      '/CN=k-test-server',
      `subjectAltName=${serverNames.join(',')}\nextendedKeyUsage=serverAuth\n`,
    );
    issue('client', '/CN=k-test-client/O=testers', 'extendedKeyUsage=clientAuth\n');
    const read = (name: string) => readFileSync(path(name), 'utf8');
    return {
      caPem: read('ca.crt'),
      serverCertPem: read('server.crt'),
      serverKeyPem: read('server.key'),
      clientCertPem: read('client.crt'),
      clientKeyPem: read('client.key'),
    };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
