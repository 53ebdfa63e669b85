import { checkString } from '../argument-checks.js';

import { accessSync, constants } from 'node:fs';
import type { AuthInfo, Cluster } from '../model/kubeconfig.js';

/** The message client-go gives for a cluster with nothing in it (its ErrEmptyCluster). */
export const EMPTY_CLUSTER_MESSAGE = 'cluster has no server defined';

const PROXY_SCHEMES = new Set(['http:', 'https:', 'socks5:']);
const INTERACTIVE_MODES = new Set(['Never', 'IfAvailable', 'Always']);

/**
 * validateCluster returns client-go's validation messages for the selected cluster (empty
 * when usable). `exists` is false when no entry and no override defined the cluster at all.
 * Reading a CA file is checked here, as client-go does, so a typo fails before any request.
 */
export function validateCluster(name: string, cluster: Cluster, exists: boolean): string[] {
  if (!exists) return [EMPTY_CLUSTER_MESSAGE];
  const problems: string[] = [];
  if (!cluster.server) {
    problems.push(
      name ? `no server found for cluster "${name}"` : 'default cluster has no server defined',
    );
  }
  if (cluster.proxyUrl) {
    const problem = proxyUrlProblem(cluster.proxyUrl);
    if (problem)
      problems.push(`invalid 'proxy-url' "${cluster.proxyUrl}" for cluster "${name}": ${problem}`);
  }
  if (cluster.certificateAuthority && cluster.certificateAuthorityData) {
    problems.push(
      `certificate-authority-data and certificate-authority are both specified for ${name}. certificate-authority-data will override.`,
    );
  }
  if (cluster.certificateAuthority) {
    const problem = unreadable(cluster.certificateAuthority);
    if (problem) {
      problems.push(
        `unable to read certificate-authority ${cluster.certificateAuthority} for ${name} due to ${problem}`,
      );
    }
  }
  return problems;
}

/** validateAuthInfo returns client-go's validation messages for the selected user. */
export function validateAuthInfo(name: string, user: AuthInfo): string[] {
  const problems: string[] = [];
  const methods: string[] = [];
  if (user.token) methods.push('token');
  if (user.username || user.password) methods.push('basicAuth');
  if (user.clientCertificate || user.clientCertificateData) {
    if (user.clientCertificate && user.clientCertificateData) {
      problems.push(
        `client-cert-data and client-cert are both specified for ${name}. client-cert-data will override.`,
      );
    }
    if (user.clientKey && user.clientKeyData) {
      problems.push(
        `client-key-data and client-key are both specified for ${name}; client-key-data will override`,
      );
    }
    if (!user.clientKey && !user.clientKeyData) {
      problems.push(
        `client-key-data or client-key must be specified for ${name} to use the clientCert authentication method.`,
      );
    }
    for (const [label, path] of [
      ['client-cert', user.clientCertificate],
      ['client-key', user.clientKey],
    ] as const) {
      const problem = path ? unreadable(path) : undefined;
      if (problem) problems.push(`unable to read ${label} ${path} for ${name} due to ${problem}`);
    }
  }
  if (user.exec) {
    const plugin = 'to use exec authentication plugin';
    if (user.authProvider) {
      problems.push(
        `authProvider cannot be provided in combination with an exec plugin for ${name}`,
      );
    }
    if (!user.exec.command) problems.push(`command must be specified for ${name} ${plugin}`);
    if (!user.exec.apiVersion) problems.push(`apiVersion must be specified for ${name} ${plugin}`);
    if (user.exec.env?.some((variable) => !variable.name)) {
      problems.push(`env variable name must be specified for ${name} ${plugin}`);
    }
    const mode = user.exec.interactiveMode;
    if (!mode) problems.push(`interactiveMode must be specified for ${name} ${plugin}`);
    else if (!INTERACTIVE_MODES.has(mode))
      problems.push(`invalid interactiveMode for ${name}: "${mode}"`);
  }
  if (methods.length > 1) {
    problems.push(
      `more than one authentication method found for ${name}; found [${methods.join(' ')}], only one is allowed`,
    );
  }
  const extraCount = user.impersonateUserExtra?.size ?? 0;
  if (
    (user.impersonateUid || user.impersonateGroups?.length || extraCount > 0) &&
    !user.impersonate
  ) {
    problems.push(`requesting uid, groups or user-extra for ${name} without impersonating a user`);
  }
  return problems;
}

/**
 * proxyUrlProblem checks a proxy URL as client-go does: it must parse and use http, https or
 * socks5. Returns the reason, or undefined when it is usable.
 */
function proxyUrlProblem(value: string): string | undefined {
  checkString('proxyUrlProblem', 'value', value);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not a valid url';
  }
  if (!PROXY_SCHEMES.has(url.protocol)) {
    return `unsupported scheme "${url.protocol.slice(0, -1)}", must be http, https, or socks5`;
  }
  return undefined;
}

function unreadable(path: string): string | undefined {
  try {
    accessSync(path, constants.R_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'no such file or directory' : (code ?? 'an unreadable file');
  }
}
