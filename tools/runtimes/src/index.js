import path from 'node:path';
import { cacheDirectory, installRuntime } from './install.js';
import { runtimeSpec } from './pins.js';

export { RuntimeError } from './errors.js';
export { cacheDirectory } from './install.js';
export { NODE_FLOOR, PRIMARY_NODE_LINE, RUNTIME_NAMES, TESTED_NODE_LINES } from './pins.js';

/** @typedef {import('./install.js').InstalledRuntime} InstalledRuntime */
/** @typedef {import('./install.js').InstallOptions} InstallOptions */

/** @type {Map<string, Promise<InstalledRuntime>>} */
const pending = new Map();

/**
 * ensureRuntime returns the pinned runtime `name` (`node@22`, `node@24`, `node@26`, `bun`, `deno`;
 * versions in runtimes.json), installing it from the package registry into
 * {@link cacheDirectory} first when it is missing. Safe to call concurrently, from one process or
 * many: an install goes to a temporary folder, is verified (`--version`), then renamed into place.
 * Rejects with a {@link RuntimeError} naming the runtime and version.
 * @param {string} name
 * @param {InstallOptions} [options]
 * @returns {Promise<InstalledRuntime>}
 */
export function ensureRuntime(name, options = {}) {
  let spec;
  try {
    spec = runtimeSpec(name);
  } catch (error) {
    return Promise.reject(error);
  }
  const key = `${options.cacheDirectory ?? cacheDirectory(options.env)}\0${name}`;
  let result = pending.get(key);
  if (!result) {
    result = installRuntime(spec, options);
    // A failure is not remembered: the next call tries again.
    result.catch(() => pending.delete(key));
    pending.set(key, result);
  }
  return result;
}

/**
 * runtimeEnvironment is `env` with `runtime.binDir` first on PATH (so `node`, and every
 * `#!/usr/bin/env node` program such as npm, npx and the packages' bins, run on it) and
 * `K_RUNTIMES_NAME` / `K_RUNTIMES_VERSION` naming it for the programs below.
 * @param {InstalledRuntime} runtime
 * @param {Readonly<Record<string, string | undefined>>} [env]
 * @returns {Record<string, string>}
 */
export function runtimeEnvironment(runtime, env = process.env) {
  /** @type {Record<string, string>} */
  const result = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) result[name] = value;
  const rest = env.PATH ? `${path.delimiter}${env.PATH}` : '';
  result.PATH = `${runtime.binDir}${rest}`;
  result.K_RUNTIMES_NAME = runtime.name;
  result.K_RUNTIMES_VERSION = runtime.version;
  return result;
}
