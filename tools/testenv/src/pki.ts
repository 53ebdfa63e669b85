import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ControlPlaneError } from './errors.js';

const execFileAsync = promisify(execFile);

/** ClientIdentity is a client certificate and its private key, PEM. */
export interface ClientIdentity {
  readonly certPem: string;
  readonly keyPem: string;
}

/** Pki holds the paths and PEM texts of a generated control-plane PKI. */
export interface Pki {
  readonly dir: string;
  readonly caCertPath: string;
  readonly caKeyPath: string;
  readonly caPem: string;
  readonly serverCertPath: string;
  readonly serverKeyPath: string;
  readonly serviceAccountKeyPath: string;
  readonly serviceAccountPublicKeyPath: string;
  /** A separate CA for the aggregation layer's request-header authentication. */
  readonly frontProxyCaCertPath: string;
  readonly frontProxyClientCertPath: string;
  readonly frontProxyClientKeyPath: string;
  /** The serving certificate of kwok's kubelet API (the nodes' address, loopback). */
  readonly kubeletServingCertPath: string;
  readonly kubeletServingKeyPath: string;
  /** The client certificate kube-apiserver presents to kubelets (kwok). */
  readonly apiServerKubeletClientCertPath: string;
  readonly apiServerKubeletClientKeyPath: string;
  readonly admin: ClientIdentity & { readonly certPath: string; readonly keyPath: string };
  readonly alice: ClientIdentity & { readonly certPath: string; readonly keyPath: string };
}

/**
 * SERVICE_CLUSTER_IP_RANGE is the service CIDR the apiserver is started with: a /16 (65,534
 * ClusterIPs), so suites that create hundreds of Services at once (the demo operator's scale test)
 * leave room for every other suite sharing the control plane; a /24 held only 254. A start flag,
 * not part of the cached build.
 */
export const SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/16';
/** The `kubernetes` Service IP: the first address of {@link SERVICE_CLUSTER_IP_RANGE}. */
const SERVICE_IP = '10.0.0.1';

/** KUBELET_SANS are the subject alternative names of kwok's kubelet serving certificate. */
export const KUBELET_SANS = ['DNS:localhost', 'IP:127.0.0.1'];

/** SERVER_SANS are the subject alternative names of the serving certificate. */
export const SERVER_SANS = [
  'DNS:localhost',
  'DNS:kubernetes',
  'DNS:kubernetes.default',
  'DNS:kubernetes.default.svc',
  'DNS:kubernetes.default.svc.cluster.local',
  'IP:127.0.0.1',
  'IP:::1',
  `IP:${SERVICE_IP}`,
];

/**
 * generatePki writes a throw-away PKI into `dir` with openssl: one CA (it signs the serving cert and
 * the client certs; the apiserver trusts it as client CA), a serving certificate for loopback and the
 * in-cluster names, client certs for `admin` (O=system:masters) and `alice` (no groups with rights),
 * the service-account signing key pair, and a separate front-proxy CA with the `front-proxy-client`
 * certificate the aggregation layer uses (request-header authentication). Keys are ECDSA P-256 (fast to generate). Certificates
 * are valid for 10 days: a test control plane never lives that long. Throws PKI_FAILED.
 */
export async function generatePki(dir: string, openssl = 'openssl'): Promise<Pki> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = (name: string) => join(dir, name);
  const run = async (args: string[]) => {
    try {
      await execFileAsync(openssl, args, { cwd: dir });
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr ?? '';
      throw new ControlPlaneError(
        'PKI_FAILED',
        `openssl ${args[0]} failed in ${dir}: ${(error as Error).message}`,
        {
          step: 'pki',
          logTail: stderr,
          cause: error,
        },
      );
    }
  };
  const ecKey = (name: string) =>
    run(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', path(name)]);

  await Promise.all([
    ecKey('ca.key'),
    ecKey('apiserver.key'),
    ecKey('admin.key'),
    ecKey('alice.key'),
    ecKey('service-account.key'),
    ecKey('front-proxy-ca.key'),
    ecKey('front-proxy-client.key'),
    ecKey('kubelet.key'),
    ecKey('apiserver-kubelet-client.key'),
    writeFile(
      path('kubelet.ext'),
      [
        'basicConstraints=critical,CA:FALSE',
        'keyUsage=critical,digitalSignature,keyEncipherment',
        'extendedKeyUsage=serverAuth',
        `subjectAltName=${KUBELET_SANS.join(',')}`,
        '',
      ].join('\n'),
    ),
    writeFile(
      path('server.ext'),
      [
        'basicConstraints=critical,CA:FALSE',
        'keyUsage=critical,digitalSignature,keyEncipherment',
        'extendedKeyUsage=serverAuth',
        `subjectAltName=${SERVER_SANS.join(',')}`,
        '',
      ].join('\n'),
    ),
    writeFile(
      path('client.ext'),
      [
        'basicConstraints=critical,CA:FALSE',
        'keyUsage=critical,digitalSignature,keyEncipherment',
        'extendedKeyUsage=clientAuth',
        '',
      ].join('\n'),
    ),
  ]);
  await Promise.all([
    run([
      'req',
      '-x509',
      '-new',
      '-key',
      path('ca.key'),
      '-sha256',
      '-days',
      '10',
      '-subj',
      '/CN=k-testenv-ca',
      '-out',
      path('ca.crt'),
    ]),
    run([
      'req',
      '-x509',
      '-new',
      '-key',
      path('front-proxy-ca.key'),
      '-sha256',
      '-days',
      '10',
      '-subj',
      '/CN=k-testenv-front-proxy-ca',
      '-out',
      path('front-proxy-ca.crt'),
    ]),
    run([
      'pkey',
      '-in',
      path('service-account.key'),
      '-pubout',
      '-out',
      path('service-account.pub'),
    ]),
  ]);
  const sign = async (name: string, subject: string, extensions: string, ca = 'ca') => {
    await run([
      'req',
      '-new',
      '-key',
      path(`${name}.key`),
      '-subj',
      subject,
      '-out',
      path(`${name}.csr`),
    ]);
    await run([
      'x509',
      '-req',
      '-in',
      path(`${name}.csr`),
      '-CA',
      path(`${ca}.crt`),
      '-CAkey',
      path(`${ca}.key`),
      '-set_serial',
      `0x${randomSerial()}`,
      '-days',
      '10',
      '-sha256',
      '-extfile',
      path(extensions),
      '-out',
      path(`${name}.crt`),
    ]);
  };
  await Promise.all([
    sign('apiserver', '/CN=kube-apiserver', 'server.ext'),
    sign('admin', '/O=system:masters/CN=admin', 'client.ext'),
    sign('alice', '/O=k-testenv:unprivileged/CN=alice', 'client.ext'),
    sign('front-proxy-client', '/CN=front-proxy-client', 'client.ext', 'front-proxy-ca'),
    sign('kubelet', '/CN=k-testenv-kubelet', 'kubelet.ext'),
    sign(
      'apiserver-kubelet-client',
      '/O=system:masters/CN=kube-apiserver-kubelet-client',
      'client.ext',
    ),
  ]);
  const read = (name: string) => readFile(path(name), 'utf8');
  const [caPem, adminCert, adminKey, aliceCert, aliceKey] = await Promise.all([
    read('ca.crt'),
    read('admin.crt'),
    read('admin.key'),
    read('alice.crt'),
    read('alice.key'),
  ]);
  return {
    dir,
    caCertPath: path('ca.crt'),
    caKeyPath: path('ca.key'),
    caPem,
    serverCertPath: path('apiserver.crt'),
    serverKeyPath: path('apiserver.key'),
    serviceAccountKeyPath: path('service-account.key'),
    serviceAccountPublicKeyPath: path('service-account.pub'),
    frontProxyCaCertPath: path('front-proxy-ca.crt'),
    frontProxyClientCertPath: path('front-proxy-client.crt'),
    frontProxyClientKeyPath: path('front-proxy-client.key'),
    kubeletServingCertPath: path('kubelet.crt'),
    kubeletServingKeyPath: path('kubelet.key'),
    apiServerKubeletClientCertPath: path('apiserver-kubelet-client.crt'),
    apiServerKubeletClientKeyPath: path('apiserver-kubelet-client.key'),
    admin: {
      certPem: adminCert,
      keyPem: adminKey,
      certPath: path('admin.crt'),
      keyPath: path('admin.key'),
    },
    alice: {
      certPem: aliceCert,
      keyPem: aliceKey,
      certPath: path('alice.crt'),
      keyPath: path('alice.key'),
    },
  };
}

function randomSerial(): string {
  return [...crypto.getRandomValues(new Uint8Array(16))]
    .map((byte) => byte.toString(16).padStart(2, '0'))
    .join('')
    .replace(/^[89a-f]/, '1');
}
