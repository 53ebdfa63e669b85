/** RuntimeName is a runtime @k/runtimes installs (versions pinned in runtimes.json). */
export type RuntimeName = 'node@22' | 'node@24' | 'node@26' | 'bun' | 'deno';

/** InstalledRuntime is a runtime ready to run from the cache. */
export interface InstalledRuntime {
  /** name is what was asked for (`node@24`). */
  readonly name: string;
  /** version is the pinned version (`24.22.3`). */
  readonly version: string;
  /** executable is the binary's absolute path. */
  readonly executable: string;
  /** binDir is the binary's folder, to put first on PATH. */
  readonly binDir: string;
}

/** InstallOptions tune {@link ensureRuntime}. */
export interface InstallOptions {
  /** cacheDirectory overrides {@link cacheDirectory}. */
  cacheDirectory?: string | undefined;
  /** env is npm's environment and where the cache is read from (default: `process.env`). */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** log is told one line when an install starts (installs take seconds to a minute). */
  log?: ((line: string) => void) | undefined;
}

/**
 * ensureRuntime returns the pinned runtime `name`, installing it from the package registry into
 * {@link cacheDirectory} first when it is missing. Safe to call concurrently, from one process or
 * many: an install goes to a temporary folder, is verified (`--version`), then renamed into place.
 * Rejects with a {@link RuntimeError} naming the runtime and version.
 */
export function ensureRuntime(
  name: RuntimeName | (string & {}),
  options?: InstallOptions,
): Promise<InstalledRuntime>;

/**
 * runtimeEnvironment is `env` with `runtime.binDir` first on PATH and `K_RUNTIMES_NAME` /
 * `K_RUNTIMES_VERSION` naming it.
 */
export function runtimeEnvironment(
  runtime: InstalledRuntime,
  env?: Readonly<Record<string, string | undefined>>,
): Record<string, string>;

/**
 * cacheDirectory is where runtimes are installed: `$K_RUNTIMES_CACHE`, else
 * `$XDG_CACHE_HOME/k-runtimes`, else `/var/cache/k-runtimes` for root (uid 0) and
 * `~/.cache/k-runtimes` for anyone else; each in `<runtime>-<version>` (`node-24.22.3`).
 */
export function cacheDirectory(
  env?: Readonly<Record<string, string | undefined>>,
  uid?: number,
): string;

/** TESTED_NODE_LINES are the Node major versions the matrix tests, lowest first ([22, 24, 26]). */
export const TESTED_NODE_LINES: readonly number[];

/** PRIMARY_NODE_LINE is the Node line the workspace's scripts and CI run on (24). */
export const PRIMARY_NODE_LINE: number;

/** NODE_FLOOR is the lowest Node version the workspace and its published packages accept. */
export const NODE_FLOOR: string;

/** RUNTIME_NAMES are the names {@link ensureRuntime} accepts. */
export const RUNTIME_NAMES: readonly RuntimeName[];

/** RuntimeErrorCode is the stable code of a {@link RuntimeError}. */
export type RuntimeErrorCode =
  | 'K_RUNTIMES_UNKNOWN'
  | 'K_RUNTIMES_UNSUPPORTED_PLATFORM'
  | 'K_RUNTIMES_INSTALL_FAILED'
  | 'K_RUNTIMES_NOT_RUNNABLE'
  | 'K_RUNTIMES_ENGINES';

/**
 * RuntimeError is every failure of @k/runtimes; `runtime` and `version` name what was asked for.
 * `instanceof` works across two copies of the package.
 */
export class RuntimeError extends Error {
  readonly code: RuntimeErrorCode;
  readonly runtime: string | undefined;
  readonly version: string | undefined;
}
