import { execFile } from 'node:child_process';
import { constants, existsSync } from 'node:fs';
import {
  access,
  link,
  mkdir,
  mkdtemp,
  realpath,
  rename,
  rm,
  stat,
  symlink,
} from 'node:fs/promises';
import { basename, delimiter, dirname, join } from 'node:path';
import { ensureBinaries } from './build.js';
import { resolveCacheRoot } from './cache-layout.js';
import type { ComponentName } from './control-plane.js';
import { ControlPlaneError } from './errors.js';
import { findGo } from './go-environment.js';
import type { KwokFiles } from './kwok-build.js';
import { silentProgress, type ProgressSink } from './progress.js';
import { KUBERNETES_VERSION } from './release.js';

/**
 * ControlPlaneBinaries are the executables {@link startControlPlane} runs. kube-apiserver and etcd
 * are required; a missing kube-controller-manager, kube-scheduler or kwok only means that component
 * is unavailable (asking for it is COMPONENT_UNAVAILABLE).
 */
export interface ControlPlaneBinaries {
  readonly etcd: string;
  readonly kubeApiServer: string;
  readonly kubeControllerManager?: string | undefined;
  readonly kubeScheduler?: string | undefined;
  /** kwok and its stages and CRDs; only a cache entry has them. */
  readonly kwok?: KwokFiles | undefined;
  /** `1.X.Y`, as kube-apiserver reports it. */
  readonly kubernetesVersion: string;
  /** Where the binaries came from, for messages (default: kube-apiserver's directory). */
  readonly directory?: string | undefined;
}

/** BinarySource says where {@link resolveBinaries} found the binaries. */
export type BinarySource = 'directory' | 'KUBEBUILDER_ASSETS' | 'cache' | 'build';

/** ResolvedBinaries are binaries {@link resolveBinaries} found and checked. */
export interface ResolvedBinaries extends ControlPlaneBinaries {
  /** `KUBEBUILDER_ASSETS` stands for the environment, the TEST_ASSET_* variables included. */
  readonly source: BinarySource;
  /** The directory of kube-apiserver (the cache entry's `bin` for the cache and a build). */
  readonly directory: string;
  /** kubectl of the directory or TEST_ASSET_KUBECTL, when there is one (the cache has none). */
  readonly kubectl?: string | undefined;
  /** The components these binaries can run, in start order. */
  readonly components: readonly ComponentName[];
}

/** ResolveBinariesOptions configure {@link resolveBinaries}; every field is optional. */
export interface ResolveBinariesOptions {
  /**
   * `'auto'` (default): the environment (TEST_ASSET_*, KUBEBUILDER_ASSETS), then the cache, then a
   * build; `'cache'`: the cache, then a build, whatever the environment says; `{ directory }`: only
   * that directory (setup-envtest's layout).
   */
  readonly binaries?: 'auto' | 'cache' | { readonly directory: string } | undefined;
  /** Build into the cache when it has no entry and Go is there (default true). */
  readonly build?: boolean | undefined;
  /** Cache root (default {@link resolveCacheRoot}). */
  readonly cacheRoot?: string | undefined;
  /** Also take kwok from the cache (building it when allowed); default true. Never for a directory. */
  readonly kwok?: boolean | undefined;
  /** Receives the progress of a verification or build. */
  readonly onProgress?: ProgressSink | undefined;
  /** The environment to read TEST_ASSET_*, KUBEBUILDER_ASSETS and PATH from (default process.env). */
  readonly env?: NodeJS.ProcessEnv | undefined;
  /** The build command the error message suggests (default `npx k-testenv build`). */
  readonly buildCommand?: string | undefined;
}

/**
 * MINIMUM_KUBERNETES_VERSION is the oldest kube-apiserver the control plane's flags work with:
 * `--shutdown-watch-termination-grace-period` came in 1.27 (the audit, endpoint-reconciler and
 * admission flags are older).
 */
export const MINIMUM_KUBERNETES_VERSION = '1.27.0';

/** The variables of controller-runtime's envtest, one per binary (`TEST_ASSET_` + upper snake). */
const TEST_ASSET_VARIABLES = {
  kubeApiServer: 'TEST_ASSET_KUBE_APISERVER',
  etcd: 'TEST_ASSET_ETCD',
  kubectl: 'TEST_ASSET_KUBECTL',
  kubeControllerManager: 'TEST_ASSET_KUBE_CONTROLLER_MANAGER',
  kubeScheduler: 'TEST_ASSET_KUBE_SCHEDULER',
} as const;

/** The file names of a setup-envtest-layout directory. */
const FILE_NAMES = {
  kubeApiServer: 'kube-apiserver',
  etcd: 'etcd',
  kubectl: 'kubectl',
  kubeControllerManager: 'kube-controller-manager',
  kubeScheduler: 'kube-scheduler',
} as const;

type BinaryKey = keyof typeof FILE_NAMES;

/**
 * resolveBinaries finds kube-apiserver and etcd (and what else there is), in this order:
 * 1. `binaries: { directory }`: that directory, nothing else;
 * 2. unless `binaries: 'cache'`: `TEST_ASSET_KUBE_APISERVER`/`TEST_ASSET_ETCD`/`TEST_ASSET_KUBECTL`
 *    per binary, else the file in `KUBEBUILDER_ASSETS`;
 * 3. the cache entry of {@link KUBERNETES_VERSION} (and kwok's, with `kwok`), verified;
 * 4. a Go build into the cache (`build !== false` and Go found), with progress;
 * 5. otherwise BINARIES_MISSING, naming what was looked for and the two ways out.
 * A directory or the environment never gets kube-controller-manager, kube-scheduler or kwok from
 * the cache (a newer controller than its kube-apiserver breaks the version-skew policy); their
 * kube-apiserver must be at least {@link MINIMUM_KUBERNETES_VERSION} (UNSUPPORTED_VERSION). A named
 * file that is missing or not executable is BINARIES_MISSING naming the file and the directory.
 */
export async function resolveBinaries(
  options: ResolveBinariesOptions = {},
): Promise<ResolvedBinaries> {
  const env = options.env ?? process.env;
  const binaries = options.binaries ?? 'auto';
  if (typeof binaries === 'object') {
    const directory = binaries.directory;
    return checkedFiles(
      'directory',
      directory,
      (key) => join(directory, FILE_NAMES[key]),
      `the directory ${directory}`,
    );
  }
  const looked: string[] = [];
  if (binaries === 'auto') {
    const assets = env.KUBEBUILDER_ASSETS || undefined;
    const named = Object.values(TEST_ASSET_VARIABLES).filter((name) => env[name]);
    if (assets || named.length > 0) {
      const pathOf = (key: BinaryKey) =>
        env[TEST_ASSET_VARIABLES[key]] || (assets ? join(assets, FILE_NAMES[key]) : undefined);
      return checkedFiles(
        'KUBEBUILDER_ASSETS',
        assets ?? dirname(pathOf('kubeApiServer') ?? pathOf('etcd') ?? '.'),
        pathOf,
        describeVariables(env, assets),
      );
    }
    looked.push(
      `${TEST_ASSET_VARIABLES.kubeApiServer}, ${TEST_ASSET_VARIABLES.etcd} and KUBEBUILDER_ASSETS (unset)`,
    );
  }
  return fromCache(options, looked);
}

function describeVariables(env: NodeJS.ProcessEnv, assets: string | undefined): string {
  const set = Object.values(TEST_ASSET_VARIABLES)
    .filter((name) => env[name])
    .map((name) => `${name}=${env[name]}`);
  return [...set, ...(assets ? [`KUBEBUILDER_ASSETS=${assets}`] : [])].join(', ');
}

/**
 * checkedFiles checks the files of a directory or of the environment: kube-apiserver and etcd must
 * be executable files, the others are taken when they are; then kube-apiserver's version.
 */
async function checkedFiles(
  source: 'directory' | 'KUBEBUILDER_ASSETS',
  directory: string,
  pathOf: (key: BinaryKey) => string | undefined,
  where: string,
): Promise<ResolvedBinaries> {
  const required = async (key: BinaryKey): Promise<string> => {
    const path = pathOf(key);
    const problem = path ? await executableProblem(path) : 'is not named';
    if (path && !problem) return path;
    throw new ControlPlaneError(
      'BINARIES_MISSING',
      `${FILE_NAMES[key]} ${path ?? ''} ${problem} (binaries from ${where}); a directory needs ` +
        `executable kube-apiserver and etcd, as \`setup-envtest use -p path\` prints one`,
      { step: 'resolve binaries' },
    );
  };
  const optional = async (key: BinaryKey): Promise<string | undefined> => {
    const path = pathOf(key);
    if (!path || !existsSync(path)) return undefined;
    return required(key);
  };
  const [kubeApiServer, etcd, kubectl, kubeControllerManager, kubeScheduler] = await Promise.all([
    required('kubeApiServer'),
    required('etcd'),
    optional('kubectl'),
    optional('kubeControllerManager'),
    optional('kubeScheduler'),
  ]);
  const kubernetesVersion = await readKubernetesVersion(kubeApiServer);
  return {
    source,
    directory,
    etcd,
    kubeApiServer,
    kubectl,
    kubeControllerManager,
    kubeScheduler,
    kubernetesVersion,
    components: componentsOf({ kubeControllerManager, kubeScheduler }),
  };
}

/** executableProblem says why `path` is not an executable file, or undefined when it is one. */
async function executableProblem(path: string): Promise<string | undefined> {
  let info;
  try {
    info = await stat(path);
  } catch {
    return 'is missing';
  }
  if (!info.isFile()) return 'is not a file';
  try {
    await access(path, constants.X_OK);
    return undefined;
  } catch {
    return 'is not executable';
  }
}

/**
 * readKubernetesVersion runs `kube-apiserver --version` (`Kubernetes v1.37.2`) and returns `1.37.2`;
 * UNSUPPORTED_VERSION when it is older than {@link MINIMUM_KUBERNETES_VERSION} or says no version.
 */
export async function readKubernetesVersion(kubeApiServer: string): Promise<string> {
  const output = await new Promise<string>((resolve, reject) =>
    execFile(kubeApiServer, ['--version'], { timeout: 30_000 }, (error, stdout, stderr) =>
      error
        ? reject(
            new ControlPlaneError(
              'BINARIES_MISSING',
              `${kubeApiServer} --version failed (${error.message.split('\n')[0]})`,
              { step: 'resolve binaries', logTail: `${stdout}${stderr}`.slice(-2000) },
            ),
          )
        : resolve(`${stdout}${stderr}`),
    ),
  );
  const match = /Kubernetes v(\d+)\.(\d+)\.(\d+)/.exec(output);
  const floor = MINIMUM_KUBERNETES_VERSION.split('.').map(Number);
  if (!match) {
    throw new ControlPlaneError(
      'UNSUPPORTED_VERSION',
      `${kubeApiServer} --version printed no Kubernetes version (need v${MINIMUM_KUBERNETES_VERSION} or newer)`,
      { step: 'resolve binaries', logTail: output.slice(0, 500) },
    );
  }
  const version = match.slice(1, 4).map(Number);
  const compare =
    (version[0]! - floor[0]!) * 1e6 + (version[1]! - floor[1]!) * 1e3 + (version[2]! - floor[2]!);
  if (compare < 0) {
    throw new ControlPlaneError(
      'UNSUPPORTED_VERSION',
      `${kubeApiServer} is Kubernetes v${version.join('.')}; the control plane's flags need ` +
        `v${MINIMUM_KUBERNETES_VERSION} or newer (${KUBERNETES_VERSION} is the release the build makes)`,
      { step: 'resolve binaries' },
    );
  }
  return version.join('.');
}

function componentsOf(binaries: {
  readonly kubeControllerManager?: string | undefined;
  readonly kubeScheduler?: string | undefined;
  readonly kwok?: unknown;
}): ComponentName[] {
  return [
    'etcd',
    'kube-apiserver',
    ...(binaries.kubeControllerManager ? (['kube-controller-manager'] as const) : []),
    ...(binaries.kubeScheduler ? (['kube-scheduler'] as const) : []),
    ...(binaries.kwok ? (['kwok'] as const) : []),
  ];
}

/** fromCache is steps 3 to 5: the verified cache entry, else a build, else BINARIES_MISSING. */
async function fromCache(
  options: ResolveBinariesOptions,
  looked: string[],
): Promise<ResolvedBinaries> {
  const env = options.env ?? process.env;
  const cacheRoot = options.cacheRoot ?? resolveCacheRoot(env);
  const common = {
    cacheRoot,
    kwok: options.kwok ?? true,
    onProgress: options.onProgress ?? silentProgress,
    go: findGo(env),
    buildCommand: (options.buildCommand ?? 'npx k-testenv build').replace(/^npx /, ''),
  };
  const build = options.build !== false;
  try {
    return toResolved('cache', await ensureBinaries({ ...common, build: false }));
  } catch (error) {
    if (!ControlPlaneError.isInstance(error)) throw error;
    if (error.code === 'GO_UNAVAILABLE') {
      // The cache key names the Go toolchain: without one, no entry can be found or built.
      looked.push(`the cache ${cacheRoot} and a Go build (both need Go: ${error.message})`);
      throw binariesMissing(looked, options.buildCommand);
    }
    if (error.code === 'CACHE_CORRUPT' && build) {
      // ensureBinaries rebuilds a corrupt entry when building is allowed.
    } else if (error.code === 'BINARIES_MISSING') {
      looked.push(`the cache ${cacheRoot} (${error.message.split(';')[0]})`);
    } else {
      throw error;
    }
  }
  if (!build) {
    looked.push('a Go build (not allowed: build is false)');
    throw binariesMissing(looked, options.buildCommand);
  }
  return toResolved('build', await ensureBinaries({ ...common, build: true }));
}

function binariesMissing(
  looked: readonly string[],
  buildCommand = 'npx k-testenv build',
): ControlPlaneError {
  return new ControlPlaneError(
    'BINARIES_MISSING',
    `no kube-apiserver and etcd binaries found. Looked at: ${looked.join('; ')}. Either set ` +
      'KUBEBUILDER_ASSETS to a directory with kube-apiserver and etcd (`setup-envtest use -p path` ' +
      `prints one), or install Go 1.26 and run \`${buildCommand}\` once (6-10 min, 2.5 GiB of memory)`,
    { step: 'resolve binaries' },
  );
}

function toResolved(
  source: 'cache' | 'build',
  binaries: Awaited<ReturnType<typeof ensureBinaries>>,
): ResolvedBinaries {
  return {
    source,
    directory: dirname(binaries.kubeApiServer),
    etcd: binaries.etcd,
    kubeApiServer: binaries.kubeApiServer,
    kubeControllerManager: binaries.kubeControllerManager,
    kubeScheduler: binaries.kubeScheduler,
    kwok: binaries.kwok,
    kubernetesVersion: binaries.kubernetesVersion,
    components: componentsOf(binaries),
  };
}

/** AssetsDirectoryOptions configure {@link assetsDirectory}. */
export interface AssetsDirectoryOptions {
  /** Cache root (default {@link resolveCacheRoot}). */
  readonly cacheRoot?: string | undefined;
  /** Build when the cache has no entry (default true). */
  readonly build?: boolean | undefined;
  readonly onProgress?: ProgressSink | undefined;
  /** Where to make the directory (default `<cacheRoot>/assets/<the cache entry's name>`). */
  readonly directory?: string | undefined;
  /** The environment whose PATH has kubectl (default process.env). */
  readonly env?: NodeJS.ProcessEnv | undefined;
}

/**
 * assetsDirectory returns a directory in setup-envtest's layout for `KUBEBUILDER_ASSETS`:
 * `kube-apiserver` and `etcd` hard-linked to the cache entry (built when needed and allowed), and
 * `kubectl` linked to the one on PATH when there is one (the cache has none). The controllers are
 * left out, as setup-envtest leaves them out. An existing directory whose links still point at the
 * entry is reused; otherwise it is made anew and renamed into place, so a reader never sees half
 * of it. Links fall back to symbolic ones across file systems.
 */
export async function assetsDirectory(options: AssetsDirectoryOptions = {}): Promise<string> {
  const env = options.env ?? process.env;
  const binaries = await resolveBinaries({
    binaries: 'cache',
    build: options.build,
    cacheRoot: options.cacheRoot,
    kwok: false,
    onProgress: options.onProgress,
    env,
  });
  const cacheRoot = options.cacheRoot ?? resolveCacheRoot(env);
  const target =
    options.directory ?? join(cacheRoot, 'assets', basename(dirname(binaries.directory)));
  const onPath = findOnPath('kubectl', env);
  // PATH's kubectl is often a relative symbolic link, which a hard link (of the link) would break.
  const kubectl = onPath && (await realpath(onPath));
  const wanted: [string, string][] = [
    ['kube-apiserver', binaries.kubeApiServer],
    ['etcd', binaries.etcd],
    ...(kubectl ? [['kubectl', kubectl] as [string, string]] : []),
  ];
  if (await linksMatch(target, wanted)) return target;
  await mkdir(dirname(target), { recursive: true });
  const work = await mkdtemp(`${target}.tmp-`);
  try {
    for (const [name, source] of wanted) await linkOrSymlink(source, join(work, name));
    await rm(target, { recursive: true, force: true });
    await rename(work, target);
  } catch (error) {
    await rm(work, { recursive: true, force: true });
    // Another process made it at the same moment.
    if (await linksMatch(target, wanted)) return target;
    throw error;
  }
  return target;
}

/** linksMatch is true when each `[name, source]` of `wanted` is in `dir` as the same file. */
async function linksMatch(dir: string, wanted: readonly [string, string][]): Promise<boolean> {
  try {
    for (const [name, source] of wanted) {
      const [linked, original] = await Promise.all([stat(join(dir, name)), stat(source)]);
      if (linked.ino !== original.ino || linked.dev !== original.dev) return false;
    }
    return true;
  } catch {
    return false;
  }
}

async function linkOrSymlink(source: string, destination: string): Promise<void> {
  try {
    await link(source, destination);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'EMLINK') throw error;
    await symlink(source, destination);
  }
}

/** findOnPath returns the first executable `name` in PATH's directories. */
function findOnPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}
