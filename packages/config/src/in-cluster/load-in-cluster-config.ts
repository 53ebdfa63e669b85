import { checkFields, checkString, IN_CLUSTER_FIELDS } from '../argument-checks.js';

import { readFile, stat } from 'node:fs/promises';
import { InClusterConfigError } from '../errors.js';
import { hideResolvedConfigSecrets } from '../resolve/hide-resolved-config-secrets.js';
import type { ResolvedConfig } from '../resolve/resolved-config.js';

/** Where Kubernetes mounts a pod's service-account credentials. */
export const SERVICE_ACCOUNT_DIRECTORY = '/var/run/secrets/kubernetes.io/serviceaccount';

/** InClusterOptions let tests (and unusual pods) point at other files and variables. */
export interface InClusterOptions {
  /** env defaults to `process.env` (`KUBERNETES_SERVICE_HOST`, `KUBERNETES_SERVICE_PORT`, `POD_NAMESPACE`). */
  env?: Record<string, string | undefined> | undefined;
  tokenFile?: string | undefined;
  caFile?: string | undefined;
  namespaceFile?: string | undefined;
}

/**
 * loadInClusterConfig builds the configuration of a process running in a pod, as client-go's
 * InClusterConfig: server `https://<KUBERNETES_SERVICE_HOST>:<KUBERNETES_SERVICE_PORT>` (IPv6
 * bracketed), the service-account token (kept as a token file, so the transport re-reads it as
 * it rotates), the CA file when it holds a PEM certificate (otherwise system roots), and the
 * namespace from `POD_NAMESPACE` or the namespace file (else `default`).
 * Throws {@link InClusterConfigError}: `ERR_CONFIG_NOT_IN_CLUSTER` or `ERR_CONFIG_IN_CLUSTER_TOKEN`.
 */
export async function loadInClusterConfig(options: InClusterOptions = {}): Promise<ResolvedConfig> {
  checkFields('loadInClusterConfig', 'options', options, IN_CLUSTER_FIELDS);
  const env = options.env ?? process.env;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw new InClusterConfigError(
      'ERR_CONFIG_NOT_IN_CLUSTER',
      'unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined',
    );
  }
  const tokenFile = options.tokenFile ?? `${SERVICE_ACCOUNT_DIRECTORY}/token`;
  let token: string;
  try {
    token = await readFile(tokenFile, 'utf8');
  } catch (error) {
    throw new InClusterConfigError(
      'ERR_CONFIG_IN_CLUSTER_TOKEN',
      `unable to read the service account token "${tokenFile}": ${(error as NodeJS.ErrnoException).code ?? 'read failed'}`,
      { cause: error },
    );
  }
  const caFile = options.caFile ?? `${SERVICE_ACCOUNT_DIRECTORY}/ca.crt`;
  const caUsable = await holdsPemCertificate(caFile);
  const namespace =
    env.POD_NAMESPACE ||
    (await readTrimmed(options.namespaceFile ?? `${SERVICE_ACCOUNT_DIRECTORY}/namespace`));
  return hideResolvedConfigSecrets({
    server: `https://${joinHostPort(host, port)}`,
    contextName: '',
    clusterName: '',
    userName: '',
    namespace: namespace || 'default',
    namespaceExplicit: Boolean(namespace),
    tls: caUsable ? { caFile, insecure: false } : { insecure: false },
    auth: { kind: 'token', token, tokenFile },
    disableCompression: false,
    source: 'in-cluster',
  });
}

/**
 * isInClusterPossible mirrors client-go's check before falling back to in-cluster: both
 * service variables set and the token file present (and not a directory).
 */
export async function isInClusterPossible(options: InClusterOptions = {}): Promise<boolean> {
  checkFields('isInClusterPossible', 'options', options, IN_CLUSTER_FIELDS);
  const env = options.env ?? process.env;
  if (!env.KUBERNETES_SERVICE_HOST || !env.KUBERNETES_SERVICE_PORT) return false;
  try {
    return !(await stat(options.tokenFile ?? `${SERVICE_ACCOUNT_DIRECTORY}/token`)).isDirectory();
  } catch {
    return false;
  }
}

/** joinHostPort brackets IPv6 literals, as Go's net.JoinHostPort. */
export function joinHostPort(host: string, port: string): string {
  checkString('joinHostPort', 'host', host);
  checkString('joinHostPort', 'port', port);
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

async function holdsPemCertificate(path: string): Promise<boolean> {
  try {
    const text = await readFile(path, 'utf8');
    return /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.test(text);
  } catch {
    return false;
  }
}

async function readTrimmed(path: string): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    return '';
  }
}
