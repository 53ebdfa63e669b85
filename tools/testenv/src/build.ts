import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { acquireBuildLock } from './build-lock.js';
import {
  cacheEntryLayout,
  cacheKey,
  resolveCacheRoot,
  type CacheEntryLayout,
} from './cache-layout.js';
import { recordFiles, STAMP_FORMAT, verifyCacheEntry, type BuildStamp } from './cache-entry.js';
import { ControlPlaneError } from './errors.js';
import { goBuildEnvironment, readGoEnvironment, type GoEnvironment } from './go-environment.js';
import {
  kubernetesRecipe,
  toKubernetesBinaries,
  type KubernetesBinaries,
} from './kubernetes-build.js';
import { silentProgress, type ProgressSink } from './progress.js';
import { kwokRecipe, toKwokFiles, type KwokFiles } from './kwok-build.js';
import { KUBERNETES_VERSION, KWOK_VERSION } from './release.js';
import { runCommand, type CommandResult } from './run-command.js';
import { Watchdog } from './watchdog-client.js';

/** EnsureBinariesOptions configure {@link ensureBinaries}. */
export interface EnsureBinariesOptions {
  /** Kubernetes release `1.X.Y` (default {@link KUBERNETES_VERSION}). */
  readonly kubernetesVersion?: string;
  /** Cache root (default {@link resolveCacheRoot}). */
  readonly cacheRoot?: string;
  /** The go executable (default: `go` on PATH, then /usr/local/go/bin/go). */
  readonly go?: string;
  /** Build when the cache has no valid entry (default true); false throws BINARIES_MISSING. */
  readonly build?: boolean;
  /** Rebuild even when a valid entry exists. */
  readonly force?: boolean;
  /**
   * Hash the binaries against the stamp: default only when they changed since the last hashing
   * (see verifyCacheEntry); true always; false only checks presence and sizes.
   */
  readonly verifyChecksums?: boolean;
  readonly onProgress?: ProgressSink;
  /** Wait for another process's build at most this long, ms (default 90 min). */
  readonly lockTimeoutMs?: number;
  /** Also ensure kwok, which simulates the nodes (default true). */
  readonly kwok?: boolean;
  /** kwok release (default {@link KWOK_VERSION}). */
  readonly kwokVersion?: string;
  /** The command messages tell to run to build (default `k-testenv build`). */
  readonly buildCommand?: string;
}

/** Binaries are the verified executables of the Kubernetes cache entry, and kwok's when asked for. */
export interface Binaries extends KubernetesBinaries {
  readonly kwok?: KwokFiles;
}

/**
 * ensureBinaries returns verified kube-apiserver, kube-controller-manager, kube-scheduler and etcd
 * binaries of the pinned release and (unless `kwok: false`) the kwok entry, building them into the
 * cache when needed (see {@link ensureCacheEntry}); the two entries are built one after the other.
 */
export async function ensureBinaries(options: EnsureBinariesOptions = {}): Promise<Binaries> {
  const kubernetesVersion = (options.kubernetesVersion ?? KUBERNETES_VERSION).replace(/^v/, '');
  const goEnvironment = await readGoEnvironment(options.go);
  const kubernetes = toKubernetesBinaries(
    await ensureCacheEntry(kubernetesRecipe(kubernetesVersion), goEnvironment, options),
  );
  if (options.kwok === false) return kubernetes;
  const kwok = toKwokFiles(
    await ensureCacheEntry(kwokRecipe(options.kwokVersion ?? KWOK_VERSION), goEnvironment, options),
  );
  return { ...kubernetes, kwok };
}

/** BuildContext is what a recipe's build gets: a work directory that becomes the entry. */
export interface BuildContext {
  /** The temporary directory that is renamed into the entry when the build succeeds. */
  readonly work: string;
  readonly goEnvironment: GoEnvironment;
  readonly progress: ProgressSink;
  /** Runs one `go` step in `cwd`; its output goes to `logs/<logName>.log` of the entry. */
  readonly go: (
    step: string,
    args: readonly string[],
    cwd: string,
    logName: string,
    lowPriority?: boolean,
  ) => Promise<CommandResult>;
}

/** EntryRecipe describes one cache entry: what it is, which files it holds, how to build them. */
export interface EntryRecipe {
  /** Start of the cache key, e.g. `kubernetes`. */
  readonly name: string;
  readonly version: string;
  /** Everything that changes what is built; its hash ends the cache key. */
  readonly recipe: unknown;
  /** The files the entry must hold, relative to it (checked against the stamp on every use). */
  readonly files: readonly string[];
  /** For messages, e.g. `Kubernetes v1.37.2`. */
  readonly title: string;
  /** What a cold build costs, for the progress line that starts it. */
  readonly coldBuildNote: string;
  /** Builds `files` into `context.work`; resolves with the versions to record in the stamp. */
  build(context: BuildContext): Promise<Record<string, string>>;
}

/** CacheEntry is a verified cache entry. */
export interface CacheEntry {
  readonly layout: CacheEntryLayout;
  readonly stamp: BuildStamp;
}

/**
 * ensureCacheEntry returns the verified entry of `recipe`, building it when needed. Concurrent
 * callers serialize on a lock file; the loser of a race waits and then uses the winner's build. A
 * build happens in a temporary directory that is renamed into place after its stamp (with
 * checksums) is written, so a crash never leaves an entry that looks finished. An existing entry
 * whose files do not match its stamp is rejected with CACHE_CORRUPT when `build` is false, and
 * rebuilt otherwise.
 */
export async function ensureCacheEntry(
  recipe: EntryRecipe,
  goEnvironment: GoEnvironment,
  options: EnsureBinariesOptions = {},
): Promise<CacheEntry> {
  const progress = options.onProgress ?? silentProgress;
  const root = options.cacheRoot ?? resolveCacheRoot();
  const layout = cacheEntryLayout(
    root,
    cacheKey({
      name: recipe.name,
      version: recipe.version,
      recipe: recipe.recipe,
      ...goEnvironment,
    }),
  );
  const verifyChecksums = options.verifyChecksums;

  if (!options.force) {
    const existing = await tryVerify(layout, recipe.files, verifyChecksums, options.buildCommand);
    if (existing.stamp) return { layout, stamp: existing.stamp };
    if (options.build === false) {
      if (existing.error) throw existing.error;
      throw new ControlPlaneError(
        'BINARIES_MISSING',
        `no build of ${recipe.title} in ${layout.entryDir}; run \`${options.buildCommand ?? 'k-testenv build'}\` (a cold build takes a long time)`,
        { step: 'verify cache' },
      );
    }
    if (existing.error)
      progress({
        kind: 'info',
        step: 'verify cache',
        elapsedMs: 0,
        message: `${existing.error.message}; rebuilding`,
      });
  }

  await mkdir(root, { recursive: true });
  const lock = await acquireBuildLock(layout.lockPath, {
    timeoutMs: options.lockTimeoutMs,
    onWait: (owner) =>
      progress({
        kind: 'info',
        step: 'lock',
        elapsedMs: 0,
        message: `waiting for the build held by pid ${owner?.pid ?? '?'} (${layout.lockPath})`,
      }),
  });
  try {
    // Whoever held the lock may just have finished the same build.
    if (!options.force) {
      const existing = await tryVerify(layout, recipe.files, true);
      if (existing.stamp) return { layout, stamp: existing.stamp };
    }
    await removeAbandonedBuilds(layout);
    await buildEntry(layout, recipe, goEnvironment, progress);
    return { layout, stamp: await verifyCacheEntry(layout, recipe.files, true) };
  } finally {
    await lock.release();
  }
}

async function tryVerify(
  layout: CacheEntryLayout,
  files: readonly string[],
  verifyChecksums: boolean | undefined,
  buildCommand?: string,
): Promise<{ stamp?: BuildStamp; error?: ControlPlaneError }> {
  if (!existsSync(layout.entryDir)) return {};
  try {
    return { stamp: await verifyCacheEntry(layout, files, verifyChecksums, buildCommand) };
  } catch (error) {
    if (ControlPlaneError.isInstance(error)) return { error };
    throw error;
  }
}

async function buildEntry(
  layout: CacheEntryLayout,
  recipe: EntryRecipe,
  goEnvironment: GoEnvironment,
  progress: ProgressSink,
): Promise<void> {
  const startedAt = Date.now();
  const work = await mkdtemp(join(layout.root, `.build-${layout.key}-`));
  const logDir = join(work, 'logs');
  await mkdir(logDir, { recursive: true });
  const env = goBuildEnvironment();
  // If this process dies mid-build (even by SIGKILL), the go commands must not build on for
  // minutes as orphans: the watchdog ends them and removes the temporary directory.
  const watchdog = await Watchdog.start(work);
  const context: BuildContext = {
    work,
    goEnvironment,
    progress,
    go: (step, args, cwd, logName, lowPriority = false) =>
      runCommand(goEnvironment.go, args, {
        step,
        cwd,
        env,
        onProgress: progress,
        logPath: join(logDir, `${logName}.log`),
        lowPriority,
        onSpawn: (pid) => watchdog.watch(pid),
      }),
  };
  progress({
    kind: 'info',
    step: 'build',
    elapsedMs: 0,
    message: `building ${recipe.title} with ${goEnvironment.goVersion} into ${layout.entryDir} (${recipe.coldBuildNote}; later builds reuse the Go caches)`,
  });
  try {
    const versions = await recipe.build(context);
    const stamp: BuildStamp = {
      format: STAMP_FORMAT,
      key: layout.key,
      versions,
      goVersion: goEnvironment.goVersion,
      goos: goEnvironment.goos,
      goarch: goEnvironment.goarch,
      builtAt: new Date().toISOString(),
      buildSeconds: Math.round((Date.now() - startedAt) / 1000),
      files: await recordFiles(work, recipe.files),
    };
    // Last write of the build: its presence (with matching checksums) is what "finished" means.
    await writeFile(join(work, 'stamp.json'), `${JSON.stringify(stamp, null, 2)}\n`);
    await watchdog.disarm();
    await swapIntoPlace(work, layout);
    progress({
      kind: 'end',
      step: 'build',
      elapsedMs: Date.now() - startedAt,
      message: `done: ${layout.entryDir}`,
    });
  } catch (error) {
    await watchdog.disarm();
    await rm(work, { recursive: true, force: true });
    throw error;
  }
}

// Temporary directories of builds that crashed; only the lock holder may touch them.
async function removeAbandonedBuilds(layout: CacheEntryLayout): Promise<void> {
  for (const name of await readdir(layout.root)) {
    if (name.startsWith(`.build-${layout.key}-`) || name.startsWith(`.trash-${layout.key}-`)) {
      await rm(join(layout.root, name), { recursive: true, force: true });
    }
  }
}

// rename(2) cannot replace a non-empty directory, so a stale entry is first renamed aside; readers
// then see either no entry (and wait for the lock we hold) or the complete new one.
async function swapIntoPlace(work: string, layout: CacheEntryLayout): Promise<void> {
  let trash: string | undefined;
  if (existsSync(layout.entryDir)) {
    trash = join(layout.root, `.trash-${layout.key}-${process.pid}-${Date.now()}`);
    await rename(layout.entryDir, trash);
  }
  await rename(work, layout.entryDir);
  if (trash) await rm(trash, { recursive: true, force: true });
}
