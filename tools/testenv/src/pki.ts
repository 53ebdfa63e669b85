import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
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
 * CLIENT_EXTENSIONS are the X.509v3 extensions of a client certificate: not a CA, client
 * authentication only.
 */
export const CLIENT_EXTENSIONS: readonly string[] = [
  'basicConstraints=critical,CA:FALSE',
  'keyUsage=critical,digitalSignature,keyEncipherment',
  'extendedKeyUsage=clientAuth',
];

/**
 * servingExtensions are the X.509v3 extensions of a serving certificate for `sans` (`DNS:…`,
 * `IP:…`): not a CA, server authentication only.
 */
export function servingExtensions(sans: readonly string[]): readonly string[] {
  return [
    'basicConstraints=critical,CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    'extendedKeyUsage=serverAuth',
    `subjectAltName=${sans.join(',')}`,
  ];
}

/**
 * runOpenssl runs the openssl CLI in `cwd`. Throws PKI_FAILED with openssl's stderr as log tail
 * (openssl never prints key material to stderr); when the binary cannot be run at all, the
 * message says that openssl is required.
 */
async function runOpenssl(args: readonly string[], cwd: string, openssl: string): Promise<void> {
  try {
    await execFileAsync(openssl, args, { cwd });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new ControlPlaneError(
      'PKI_FAILED',
      missing
        ? `openssl is required to make certificates, and ${openssl} could not be run (${(error as Error).message})`
        : `openssl ${args[0]} failed in ${cwd}: ${(error as Error).message}`,
      { step: 'pki', logTail: stderr, cause: error },
    );
  }
}

/** generateKey writes a new ECDSA P-256 private key (PKCS#8 PEM) to `keyPath`. Throws PKI_FAILED. */
export async function generateKey(keyPath: string, openssl = 'openssl'): Promise<void> {
  await runOpenssl(
    ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', keyPath],
    dirname(keyPath),
    openssl,
  );
}

/** SignCertificateOptions say which key to certify, as whom, and with which CA. */
export interface SignCertificateOptions {
  /** The signing CA's certificate and private key (PEM files). */
  readonly caCertPath: string;
  readonly caKeyPath: string;
  /** The private key being certified (a PEM file, for example from {@link generateKey}). */
  readonly keyPath: string;
  /** The subject in openssl's `-subj` form; build it with {@link distinguishedName}. */
  readonly subject: string;
  /** X.509v3 extension lines, e.g. {@link CLIENT_EXTENSIONS} or {@link servingExtensions}. */
  readonly extensions: readonly string[];
  /** Where the certificate goes. The CSR and extension file are written beside it (`.csr`, `.ext`). */
  readonly certPath: string;
  /** Validity in days (default 10: a test control plane never lives that long). */
  readonly days?: number | undefined;
  readonly openssl?: string | undefined;
}

/**
 * signCertificate issues a certificate for `keyPath`'s key, signed by the given CA, with a random
 * 127-bit serial (so two certificates of one CA never share one, which a rotation relies on).
 * It writes `certPath` and, beside it, the request (`.csr`) and extension file (`.ext`) it used.
 * Safe to call concurrently for different `certPath`s with one CA. Throws PKI_FAILED.
 */
export async function signCertificate(options: SignCertificateOptions): Promise<void> {
  const openssl = options.openssl ?? 'openssl';
  const base = options.certPath.replace(/\.(crt|pem)$/, '');
  const csrPath = `${base}.csr`;
  const extensionsPath = `${base}.ext`;
  const cwd = dirname(options.certPath);
  await writeFile(extensionsPath, [...options.extensions, ''].join('\n'), { mode: 0o600 });
  await runOpenssl(
    ['req', '-new', '-utf8', '-key', options.keyPath, '-subj', options.subject, '-out', csrPath],
    cwd,
    openssl,
  );
  await runOpenssl(
    [
      'x509',
      '-req',
      '-in',
      csrPath,
      '-CA',
      options.caCertPath,
      '-CAkey',
      options.caKeyPath,
      '-set_serial',
      `0x${randomSerial()}`,
      '-days',
      String(options.days ?? 10),
      '-sha256',
      '-extfile',
      extensionsPath,
      '-out',
      options.certPath,
    ],
    cwd,
    openssl,
  );
}

/**
 * distinguishedName renders a subject in openssl's `-subj` form: `/O=<organization>…/CN=<commonName>`.
 * Kubernetes reads the user name from CN and the groups from each O. Characters openssl treats
 * specially (`\`, `/`, `+`) are escaped; an empty or control-character value is INVALID_OPTIONS.
 */
export function distinguishedName(subject: {
  readonly commonName: string;
  readonly organizations?: readonly string[] | undefined;
}): string {
  const escape = (field: string, value: string) => {
    // eslint-disable-next-line no-control-regex -- control characters are what is refused.
    if (value === '' || /[\u0000-\u001f\u007f]/.test(value)) {
      throw new ControlPlaneError(
        'INVALID_OPTIONS',
        `a certificate's ${field} must be a non-empty string without control characters, got ${JSON.stringify(value)}`,
      );
    }
    return value.replace(/[\\/+]/g, (character) => `\\${character}`);
  };
  const organizations = (subject.organizations ?? []).map(
    (organization) => `/O=${escape('organization', organization)}`,
  );
  return `${organizations.join('')}/CN=${escape('commonName', subject.commonName)}`;
}

/** IssuedClientCertificate is a new client identity and the files it was written to. */
export interface IssuedClientCertificate extends ClientIdentity {
  readonly certPath: string;
  readonly keyPath: string;
}

/**
 * issueClientCertificate makes a new client identity for a running control plane: a fresh key and
 * a certificate signed by the plane's CA (`<pkiDir>/ca.crt`, `ca.key`) with CN = `commonName` (the
 * Kubernetes user name) and one O per entry of `organizations` (its groups). kube-apiserver trusts
 * it at once: its client CA is that CA. The files go to a new directory (mode 0700) inside `pkiDir`,
 * so they go away with the plane's run dir. Works from any process of the user that owns the plane
 * (a vitest worker whose plane belongs to the global setup). Throws PKI_FAILED or INVALID_OPTIONS.
 */
export async function issueClientCertificate(
  pkiDir: string,
  subject: {
    readonly commonName: string;
    readonly organizations?: readonly string[] | undefined;
    readonly days?: number | undefined;
  },
  openssl = 'openssl',
): Promise<IssuedClientCertificate> {
  const subjectName = distinguishedName(subject);
  const dir = await mkdtemp(join(pkiDir, 'client-'));
  const keyPath = join(dir, 'client.key');
  const certPath = join(dir, 'client.crt');
  await generateKey(keyPath, openssl);
  await signCertificate({
    caCertPath: join(pkiDir, 'ca.crt'),
    caKeyPath: join(pkiDir, 'ca.key'),
    keyPath,
    subject: subjectName,
    extensions: CLIENT_EXTENSIONS,
    certPath,
    days: subject.days,
    openssl,
  });
  const [certPem, keyPem] = await Promise.all([
    readFile(certPath, 'utf8'),
    readFile(keyPath, 'utf8'),
  ]);
  return { certPem, keyPem, certPath, keyPath };
}

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
  const run = (args: string[]) => runOpenssl(args, dir, openssl);
  const ecKey = (name: string) => generateKey(path(name), openssl);

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
  const sign = (name: string, subject: string, extensions: readonly string[], ca = 'ca') =>
    signCertificate({
      caCertPath: path(`${ca}.crt`),
      caKeyPath: path(`${ca}.key`),
      keyPath: path(`${name}.key`),
      subject,
      extensions,
      certPath: path(`${name}.crt`),
      openssl,
    });
  await Promise.all([
    sign('apiserver', '/CN=kube-apiserver', servingExtensions(SERVER_SANS)),
    sign('admin', '/O=system:masters/CN=admin', CLIENT_EXTENSIONS),
    sign('alice', '/O=k-testenv:unprivileged/CN=alice', CLIENT_EXTENSIONS),
    sign('front-proxy-client', '/CN=front-proxy-client', CLIENT_EXTENSIONS, 'front-proxy-ca'),
    sign('kubelet', '/CN=k-testenv-kubelet', servingExtensions(KUBELET_SANS)),
    sign(
      'apiserver-kubelet-client',
      '/O=system:masters/CN=kube-apiserver-kubelet-client',
      CLIENT_EXTENSIONS,
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
