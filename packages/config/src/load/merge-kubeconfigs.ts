import { checkFields, checkKubeconfig, checkString, fail } from '../argument-checks.js';

import type { Kubeconfig } from '../model/kubeconfig.js';
import { hideKubeconfigSecrets } from '../model/hide-kubeconfig-secrets.js';
import { emptyKubeconfig } from '../model/kubeconfig.js';

/** EntryOrigins records which file defined each merged entry (client-go's LocationOfOrigin). */
export interface EntryOrigins {
  clusters: Map<string, string>;
  users: Map<string, string>;
  contexts: Map<string, string>;
}

/** MergedKubeconfig is the merge result with the origin of every entry. */
export interface MergedKubeconfig {
  config: Kubeconfig;
  origins: EntryOrigins;
}

/**
 * mergeKubeconfigs merges files in precedence order with client-go's rule: the first file to
 * define a cluster, user, context or extension name wins the whole entry (later same-named
 * entries are dropped, even their non-conflicting fields); `current-context` comes from the
 * first file that sets it; `preferences.colors` is true when any file sets it.
 */
export function mergeKubeconfigs(
  files: readonly { path: string; config: Kubeconfig }[],
): MergedKubeconfig {
  const given: unknown = files; // checked apart, so that `files` keeps its element type
  if (!Array.isArray(given))
    fail('mergeKubeconfigs', 'files', 'an array of { path, config }', files);
  files.forEach((file, index) =>
    checkFields(
      'mergeKubeconfigs',
      `files[${index}]`,
      file,
      { path: checkString, config: checkKubeconfig },
      false,
    ),
  );
  const config = emptyKubeconfig();
  const origins: EntryOrigins = { clusters: new Map(), users: new Map(), contexts: new Map() };
  for (const file of files) {
    const source = file.config;
    addMissing(config.clusters, source.clusters, origins.clusters, file.path);
    addMissing(config.users, source.users, origins.users, file.path);
    addMissing(config.contexts, source.contexts, origins.contexts, file.path);
    addMissing(config.extensions, source.extensions);
    if (!config.currentContext && source.currentContext)
      config.currentContext = source.currentContext;
    if (source.preferences.colors) config.preferences.colors = true;
    if (source.preferences.extensions) {
      config.preferences.extensions ??= new Map();
      addMissing(config.preferences.extensions, source.preferences.extensions);
    }
  }
  return { config: hideKubeconfigSecrets(config), origins };
}

function addMissing<T>(
  target: Map<string, T>,
  source: Map<string, T>,
  origins?: Map<string, string>,
  path?: string,
) {
  for (const [name, entry] of source) {
    if (target.has(name)) continue;
    target.set(name, entry);
    if (origins && path !== undefined) origins.set(name, path);
  }
}
