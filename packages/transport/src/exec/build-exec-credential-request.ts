import { readFile } from 'node:fs/promises';
import type { ResolvedConfig } from '@k/config';
import {
  expectRecord,
  expectResolvedConfig,
  expectString,
  invalidArgument,
} from '../checks/argument-checks.js';
import { ExecPluginError } from '../errors.js';

/** EXEC_CREDENTIAL_API_VERSIONS are the ExecCredential versions an exec plugin may be configured with. */
export const EXEC_CREDENTIAL_API_VERSIONS: readonly string[] = [
  'client.authentication.k8s.io/v1',
  'client.authentication.k8s.io/v1beta1',
];

/** EXEC_INFO_ENV_VAR is the environment variable that carries the ExecCredential request. */
export const EXEC_INFO_ENV_VAR = 'KUBERNETES_EXEC_INFO';

/**
 * ExecCluster is `spec.cluster` of an ExecCredential: the cluster the plugin authenticates to,
 * with client-go's JSON names. Optional fields are absent when unset (Go's `omitempty`).
 */
export interface ExecCluster {
  server: string;
  'tls-server-name'?: string | undefined;
  'insecure-skip-tls-verify'?: boolean | undefined;
  /** certificate-authority-data is base64 of the CA bundle (read from the CA file if only a path is set). */
  'certificate-authority-data'?: string | undefined;
  'proxy-url'?: string | undefined;
  'disable-compression'?: boolean | undefined;
  /** config is the cluster's `client.authentication.k8s.io/exec` extension, as written. */
  config?: unknown;
}

/** ExecCredentialRequest is the ExecCredential object passed to a plugin in `KUBERNETES_EXEC_INFO`. */
export interface ExecCredentialRequest {
  kind: 'ExecCredential';
  apiVersion: string;
  spec: { cluster?: ExecCluster | undefined; interactive: boolean };
}

/**
 * execClusterInfo builds `spec.cluster` for a plugin with `provideClusterInfo: true`, in
 * client-go's field order: server, tls-server-name, insecure-skip-tls-verify,
 * certificate-authority-data, proxy-url, disable-compression, config. The CA comes from
 * `tls.caData`, else from reading `tls.caFile` (each call reads it afresh, so a rotated CA is
 * seen); an unreadable file throws `ERR_TRANSPORT_EXEC_CLUSTER_INFO` with client-go's message.
 */
export async function execClusterInfo(
  config: ResolvedConfig,
  extension: unknown,
  command: string,
): Promise<ExecCluster> {
  expectResolvedConfig(config, 'execClusterInfo', 'config');
  expectString(command, 'execClusterInfo', 'command');
  const cluster: ExecCluster = { server: config.server };
  if (config.tls.serverName) cluster['tls-server-name'] = config.tls.serverName;
  if (config.tls.insecure) cluster['insecure-skip-tls-verify'] = true;
  let caData = config.tls.caData;
  if (!caData?.length && config.tls.caFile) {
    try {
      caData = await readFile(config.tls.caFile);
    } catch (error) {
      throw new ExecPluginError(
        'ERR_TRANSPORT_EXEC_CLUSTER_INFO',
        `failed to load CA bundle for execProvider: ${(error as Error).message}`,
        { command, cause: error },
      );
    }
  }
  if (caData?.length)
    cluster['certificate-authority-data'] = Buffer.from(caData).toString('base64');
  if (config.proxyUrl) cluster['proxy-url'] = config.proxyUrl;
  if (config.disableCompression) cluster['disable-compression'] = true;
  if (extension !== undefined) cluster.config = extension;
  return cluster;
}

/**
 * buildExecCredentialRequest returns the ExecCredential request in client-go's exact shape:
 * `{"kind":"ExecCredential","apiVersion":…,"spec":{"cluster"?:…,"interactive":…}}` —
 * `spec.interactive` always present, `spec.cluster` only when given, no `status`. Pure.
 */
export function buildExecCredentialRequest(
  apiVersion: string,
  interactive: boolean,
  cluster?: ExecCluster,
): ExecCredentialRequest {
  expectString(apiVersion, 'buildExecCredentialRequest', 'apiVersion');
  if (typeof interactive !== 'boolean') {
    throw invalidArgument(
      'buildExecCredentialRequest',
      'interactive',
      'true or false',
      interactive,
    );
  }
  if (cluster !== undefined) {
    expectRecord(
      cluster,
      'buildExecCredentialRequest',
      'cluster',
      'an ExecCluster ({ server, … }) or undefined',
    );
  }
  const spec: ExecCredentialRequest['spec'] = cluster ? { cluster, interactive } : { interactive };
  return { kind: 'ExecCredential', apiVersion, spec };
}
