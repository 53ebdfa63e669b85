import { checkKubeconfig, checkOrigins } from '../argument-checks.js';

import { dirname, isAbsolute, resolve, sep } from 'node:path';
import { hideKubeconfigSecrets } from '../model/hide-kubeconfig-secrets.js';
import type { Kubeconfig } from '../model/kubeconfig.js';
import type { EntryOrigins } from './merge-kubeconfigs.js';

/**
 * resolveLocalPaths makes the relative file paths of each cluster and user absolute against
 * the directory of the file that defined it, as client-go's ResolveLocalPaths does:
 * `certificate-authority`, `client-certificate`, `client-key`, `tokenFile`, and `exec.command`
 * only when it contains a path separator (a bare name is left for a PATH lookup). Not touched:
 * `proxy-url`, `auth-provider` config, `*-data` fields. Returns a new Kubeconfig.
 */
export function resolveLocalPaths(config: Kubeconfig, origins: EntryOrigins): Kubeconfig {
  checkKubeconfig('resolveLocalPaths', 'config', config);
  checkOrigins('resolveLocalPaths', 'origins', origins);
  const clusters = new Map(
    [...config.clusters].map(([name, cluster]) => {
      const base = baseDirectory(origins.clusters.get(name));
      if (base === undefined) return [name, cluster];
      const resolved = { ...cluster };
      if (resolved.certificateAuthority)
        resolved.certificateAuthority = absolute(base, resolved.certificateAuthority);
      return [name, resolved];
    }),
  );
  const users = new Map(
    [...config.users].map(([name, user]) => {
      const base = baseDirectory(origins.users.get(name));
      if (base === undefined) return [name, user];
      const resolved = { ...user };
      if (resolved.clientCertificate)
        resolved.clientCertificate = absolute(base, resolved.clientCertificate);
      if (resolved.clientKey) resolved.clientKey = absolute(base, resolved.clientKey);
      if (resolved.tokenFile) resolved.tokenFile = absolute(base, resolved.tokenFile);
      if (resolved.exec?.command && resolved.exec.command.includes(sep)) {
        resolved.exec = { ...resolved.exec, command: absolute(base, resolved.exec.command) };
      }
      return [name, resolved];
    }),
  );
  return hideKubeconfigSecrets({ ...config, clusters, users });
}

function baseDirectory(origin: string | undefined): string | undefined {
  return origin ? dirname(resolve(origin)) : undefined;
}

function absolute(base: string, path: string): string {
  return isAbsolute(path) ? path : resolve(base, path);
}
