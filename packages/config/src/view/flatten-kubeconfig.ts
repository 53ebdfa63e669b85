import {
  checkFields,
  checkKubeconfig,
  checkOrigins,
  checkString,
  optional,
} from '../argument-checks.js';

import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { KubeconfigError } from '../errors.js';
import type { EntryOrigins } from '../load/merge-kubeconfigs.js';
import { hideKubeconfigSecrets } from '../model/hide-kubeconfig-secrets.js';
import type { Kubeconfig } from '../model/kubeconfig.js';

/** FlattenKubeconfigOptions say where relative origin files are. */
export interface FlattenKubeconfigOptions {
  /** cwd resolves relative origin paths (default `process.cwd()`). */
  cwd?: string | undefined;
}

/**
 * flattenKubeconfig inlines referenced files as `kubectl config view --flatten` does
 * (client-go's FlattenConfig): each cluster's `certificate-authority` becomes
 * `certificate-authority-data`, each user's `client-certificate` and `client-key` become
 * `*-data`, and the path is removed. Relative paths resolve against the directory of the file
 * that defined the entry (`origins`). `tokenFile` and exec commands are left alone, as kubectl
 * does. Throws `ERR_CONFIG_INVALID` when a path and its data are both set and
 * `ERR_CONFIG_READ` when a file cannot be read; neither message holds file content.
 * Returns a new Kubeconfig.
 */
export async function flattenKubeconfig(
  config: Kubeconfig,
  origins: EntryOrigins,
  options: FlattenKubeconfigOptions = {},
): Promise<Kubeconfig> {
  checkKubeconfig('flattenKubeconfig', 'config', config);
  checkOrigins('flattenKubeconfig', 'origins', origins);
  checkFields('flattenKubeconfig', 'options', options, { cwd: optional(checkString) });
  const cwd = options.cwd ?? process.cwd();
  const base = (origin: string | undefined) => dirname(resolve(cwd, origin ?? '.'));
  const clusters = new Map(config.clusters);
  for (const [name, cluster] of config.clusters) {
    if (!cluster.certificateAuthority) continue;
    const entry = `cluster "${name}"`;
    const flattened = { ...cluster };
    flattened.certificateAuthorityData = await inline(
      entry,
      'certificate-authority',
      cluster.certificateAuthority,
      cluster.certificateAuthorityData,
      base(origins.clusters.get(name)),
    );
    delete flattened.certificateAuthority;
    clusters.set(name, flattened);
  }
  const users = new Map(config.users);
  for (const [name, user] of config.users) {
    if (!user.clientCertificate && !user.clientKey) continue;
    const entry = `user "${name}"`;
    const directory = base(origins.users.get(name));
    const flattened = { ...user };
    if (user.clientCertificate) {
      flattened.clientCertificateData = await inline(
        entry,
        'client-certificate',
        user.clientCertificate,
        user.clientCertificateData,
        directory,
      );
      delete flattened.clientCertificate;
    }
    if (user.clientKey) {
      flattened.clientKeyData = await inline(
        entry,
        'client-key',
        user.clientKey,
        user.clientKeyData,
        directory,
      );
      delete flattened.clientKey;
    }
    users.set(name, flattened);
  }
  return hideKubeconfigSecrets({ ...config, clusters, users });
}

async function inline(
  entry: string,
  field: string,
  path: string,
  data: Uint8Array | undefined,
  directory: string,
): Promise<Uint8Array> {
  if (data?.length) {
    throw new KubeconfigError(
      'ERR_CONFIG_INVALID',
      `cannot flatten ${entry}: ${field} and ${field}-data are both set (cannot have values for both path and contents)`,
      { entry },
    );
  }
  const absolute = resolve(directory, path);
  try {
    return new Uint8Array(await readFile(absolute));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'read failed';
    const reason = code === 'ENOENT' ? 'no such file or directory' : code;
    throw new KubeconfigError(
      'ERR_CONFIG_READ',
      `cannot flatten ${entry}: open ${absolute}: ${reason}`,
      { path: absolute, entry, cause: error },
    );
  }
}
