import { checkFields, LOAD_FIELDS } from '../argument-checks.js';

import { readFile } from 'node:fs/promises';
import { KubeconfigError } from '../errors.js';
import { hideLoadedKubeconfigSecrets } from '../model/hide-kubeconfig-secrets.js';
import type { Kubeconfig } from '../model/kubeconfig.js';
import type { KubeconfigFile } from '../model/parse-kubeconfig.js';
import { parseKubeconfig } from '../model/parse-kubeconfig.js';
import type { LoadingPrecedence, LoadingRulesOptions } from './loading-rules.js';
import { loadingPrecedence } from './loading-rules.js';
import type { EntryOrigins } from './merge-kubeconfigs.js';
import { mergeKubeconfigs } from './merge-kubeconfigs.js';
import { resolveLocalPaths } from './resolve-local-paths.js';

/** LoadKubeconfigOptions select the files (kubectl's loading rules) and how they are read. */
export interface LoadKubeconfigOptions extends LoadingRulesOptions {
  /**
   * resolvePaths makes relative paths absolute against their file's directory (default true).
   * `kubectl config` commands show paths as written, so they turn it off.
   */
  resolvePaths?: boolean | undefined;
  /**
   * allowMissingExplicitPath treats a missing `explicitPath` as an empty file, as the
   * `kubectl config` commands do (they may create it). Default false: a missing explicit file
   * is an error naming the path, as for every other kubectl command.
   */
  allowMissingExplicitPath?: boolean | undefined;
  /** onWarning receives client-go's non-fatal notices, e.g. when no listed file exists. */
  onWarning?: ((message: string) => void) | undefined;
}

/**
 * LoadedKubeconfig is the merged configuration plus what was read to make it: the files that
 * exist (in precedence order, with their YAML documents for writing back) and the origin of
 * every entry.
 */
export interface LoadedKubeconfig {
  config: Kubeconfig;
  origins: EntryOrigins;
  files: KubeconfigFile[];
  precedence: LoadingPrecedence;
}

/**
 * loadKubeconfig reads and merges kubeconfig files exactly as kubectl does: an explicit path
 * alone (missing → `ERR_CONFIG_READ` naming it), else the `KUBECONFIG` list (missing files
 * skipped), else `~/.kube/config`; the first file to define a name wins (see
 * {@link mergeKubeconfigs}). A file that exists but cannot be read or parsed is an error
 * naming it. A zero-byte file is an empty config.
 */
export async function loadKubeconfig(
  options: LoadKubeconfigOptions = {},
): Promise<LoadedKubeconfig> {
  checkFields('loadKubeconfig', 'options', options, LOAD_FIELDS);
  const precedence = loadingPrecedence(options);
  const files: KubeconfigFile[] = [];
  for (const path of precedence.files) {
    const bytes = await readKubeconfigFile(path, path === precedence.explicitPath, options);
    if (bytes) files.push(parseKubeconfig(bytes, path));
  }
  if (files.length === 0 && precedence.fromEnv) {
    options.onWarning?.(`Config not found: ${precedence.files.join(', ')}`);
  }
  const merged = mergeKubeconfigs(files);
  const config =
    options.resolvePaths === false
      ? merged.config
      : resolveLocalPaths(merged.config, merged.origins);
  return hideLoadedKubeconfigSecrets({ config, origins: merged.origins, files, precedence });
}

async function readKubeconfigFile(
  path: string,
  explicit: boolean,
  options: LoadKubeconfigOptions,
): Promise<Uint8Array | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && (!explicit || options.allowMissingExplicitPath)) return undefined;
    const reason = code === 'ENOENT' ? 'no such file or directory' : describeReadError(error);
    const message =
      explicit && code === 'ENOENT'
        ? `stat ${path}: ${reason}`
        : `error loading config file "${path}": ${reason}`;
    throw new KubeconfigError('ERR_CONFIG_READ', message, { path, cause: error });
  }
}

function describeReadError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EISDIR') return 'is a directory';
  if (code === 'EACCES') return 'permission denied';
  return code ?? 'read failed';
}
