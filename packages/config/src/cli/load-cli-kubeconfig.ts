import { delimiter, resolve } from 'node:path';
import type { LoadedKubeconfig } from '../load/load-kubeconfig.js';
import { loadKubeconfig } from '../load/load-kubeconfig.js';
import { KUBECONFIG_ENV_VAR } from '../load/loading-rules.js';
import type { CliIo } from './cli-io.js';

/**
 * loadCliKubeconfig loads the files as every `kubectl config` command does (client-go's
 * PathOptions): `--kubeconfig` alone, else `KUBECONFIG`, else `~/.kube/config`; a missing
 * `--kubeconfig` file is an empty config (the command may create it) and paths are shown as
 * written, not resolved. Relative file names resolve against `io.cwd`, not the process's.
 */
export async function loadCliKubeconfig(
  io: CliIo,
  explicitPath: string | undefined,
): Promise<LoadedKubeconfig> {
  const list = io.env[KUBECONFIG_ENV_VAR];
  const env = { ...io.env };
  if (list) {
    env[KUBECONFIG_ENV_VAR] = list
      .split(delimiter)
      .map((entry) => (entry === '' ? '' : resolve(io.cwd, entry)))
      .join(delimiter);
  }
  return loadKubeconfig({
    env,
    ...(explicitPath ? { explicitPath: resolve(io.cwd, explicitPath) } : {}),
    ...(io.env.HOME ? { homeDir: resolve(io.cwd, io.env.HOME) } : {}),
    allowMissingExplicitPath: true,
    resolvePaths: false,
  });
}
