import { checkPrecedence } from '../argument-checks.js';

import { statSync } from 'node:fs';
import { KubeconfigError } from '../errors.js';
import type { LoadingPrecedence } from '../load/loading-rules.js';

/**
 * defaultKubeconfigFile is the file that receives new clusters, users and contexts and a new
 * `current-context`, as client-go's PathOptions.GetDefaultFilename chooses it (checked
 * against kubectl): the `--kubeconfig` file when given; else with `KUBECONFIG` listing one file,
 * that file; listing several, the first that exists now, or the last listed when none does;
 * without `KUBECONFIG`, `~/.kube/config`. Throws `ERR_CONFIG_WRITE` when `KUBECONFIG` is set
 * but names no file (kubectl then fails to open "").
 */
export function defaultKubeconfigFile(precedence: LoadingPrecedence): string {
  checkPrecedence('defaultKubeconfigFile', 'precedence', precedence);
  if (precedence.explicitPath) return precedence.explicitPath;
  if (!precedence.fromEnv) return precedence.defaultFile;
  const { files } = precedence;
  if (files.length === 0) {
    throw new KubeconfigError(
      'ERR_CONFIG_WRITE',
      'cannot choose a kubeconfig file to write: KUBECONFIG is set but lists no file',
    );
  }
  if (files.length === 1) return files[0] ?? '';
  return files.find(exists) ?? files[files.length - 1] ?? '';
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}
