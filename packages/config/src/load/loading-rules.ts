import { checkFields, LOADING_RULES_FIELDS } from '../argument-checks.js';

import { homedir } from 'node:os';
import { join } from 'node:path';

/** The environment variable that lists kubeconfig files, as kubectl reads it. */
export const KUBECONFIG_ENV_VAR = 'KUBECONFIG';

/** LoadingRulesOptions are the inputs of kubectl's file-selection rules. */
export interface LoadingRulesOptions {
  /** explicitPath is `--kubeconfig`: when set, only this file is loaded, and it must exist. */
  explicitPath?: string | undefined;
  /** env defaults to `process.env`; `KUBECONFIG` and `HOME` are read from it. */
  env?: Record<string, string | undefined> | undefined;
  /** homeDir overrides the home directory (default `$HOME`, else the OS user's home). */
  homeDir?: string | undefined;
  /** platform decides the list separator of `KUBECONFIG` (`;` on win32, `:` elsewhere). */
  platform?: NodeJS.Platform | undefined;
}

/** LoadingPrecedence says which files are read, in which order. */
export interface LoadingPrecedence {
  /** explicitPath is set when `--kubeconfig` was given; then `files` is exactly `[explicitPath]`. */
  explicitPath: string | undefined;
  /** files in precedence order: the first file to define a name wins. */
  files: string[];
  /** fromEnv is true when the list came from `KUBECONFIG`. */
  fromEnv: boolean;
  /** defaultFile is `~/.kube/config`. */
  defaultFile: string;
}

/**
 * loadingPrecedence applies client-go's loading rules: an explicit path wins alone; otherwise
 * the `KUBECONFIG` list (split on the platform separator, empty entries dropped, duplicates
 * removed keeping the first); otherwise `~/.kube/config`. Pure: it reads no files.
 */
export function loadingPrecedence(options: LoadingRulesOptions = {}): LoadingPrecedence {
  checkFields('loadingPrecedence', 'options', options, LOADING_RULES_FIELDS);
  const env = options.env ?? process.env;
  const defaultFile = join(
    options.homeDir ?? homeDirectory(env, options.platform),
    '.kube',
    'config',
  );
  if (options.explicitPath) {
    return {
      explicitPath: options.explicitPath,
      files: [options.explicitPath],
      fromEnv: false,
      defaultFile,
    };
  }
  const list = env[KUBECONFIG_ENV_VAR];
  if (list) {
    const separator = (options.platform ?? process.platform) === 'win32' ? ';' : ':';
    const files = [...new Set(list.split(separator).filter((entry) => entry !== ''))];
    return { explicitPath: undefined, files, fromEnv: true, defaultFile };
  }
  return { explicitPath: undefined, files: [defaultFile], fromEnv: false, defaultFile };
}

function homeDirectory(
  env: Record<string, string | undefined>,
  platform = process.platform,
): string {
  if (platform === 'win32') {
    const drivePath = env.HOMEDRIVE && env.HOMEPATH ? env.HOMEDRIVE + env.HOMEPATH : undefined;
    return env.HOME || drivePath || env.USERPROFILE || homedir();
  }
  return env.HOME || homedir();
}
