import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { acquireBuildLock } from './build-lock.js';
import {
  BINARY_NAMES,
  cacheEntryLayout,
  cacheKey,
  resolveCacheRoot,
  type BinaryName,
  type CacheEntryLayout,
} from './cache-layout.js';
import {
  sha256File,
  STAMP_FORMAT,
  verifyCacheEntry,
  type Binaries,
  type BuildStamp,
} from './cache-entry.js';
import { ControlPlaneError } from './errors.js';
import { goBuildEnvironment, readGoEnvironment, type GoEnvironment } from './go-environment.js';
import {
  etcdServerVersion,
  renderEtcdWrapperGoMod,
  renderKubernetesWrapperGoMod,
} from './go-mod.js';
import { kubernetesLdflags, toBuildDate } from './ldflags.js';
import { silentProgress, type ProgressSink } from './progress.js';
import { KUBERNETES_VERSION } from './release.js';
import { runCommand } from './run-command.js';
import { Watchdog } from './watchdog-client.js';

/** The commands of k8s.io/kubernetes that are built, in one `go build`. */
const KUBERNETES_COMMANDS = [
  'k8s.io/kubernetes/cmd/kube-apiserver',
  'k8s.io/kubernetes/cmd/kube-controller-manager',
];
/** Build tags upstream's hack/lib/golang.sh uses for release binaries (none is required). */
const KUBERNETES_BUILD_TAGS = 'selinux,notest,grpcnotrace';

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
  /** Hash the binaries against the stamp (default true); false only checks presence and sizes. */
  readonly verifyChecksums?: boolean;
  readonly onProgress?: ProgressSink;
  /** Wait for another process's build at most this long, ms (default 90 min). */
  readonly lockTimeoutMs?: number;
}

/**
 * ensureBinaries returns verified kube-apiserver, kube-controller-manager and etcd binaries of the
 * pinned release, building them into the cache when needed. Concurrent callers serialize on a lock
 * file; the loser of a race waits and then uses the winner's build. A build happens in a temporary
 * directory that is renamed into place after its stamp (with checksums) is written, so a crash
 * never leaves an entry that looks finished. An existing entry whose binaries do not match its stamp
 * is rejected with CACHE_CORRUPT when `build` is false, and rebuilt otherwise.
 */
export async function ensureBinaries(options: EnsureBinariesOptions = {}): Promise<Binaries> {
  const progress = options.onProgress ?? silentProgress;
  const kubernetesVersion = (options.kubernetesVersion ?? KUBERNETES_VERSION).replace(/^v/, '');
  const goEnvironment = await readGoEnvironment(options.go);
  const root = options.cacheRoot ?? resolveCacheRoot();
  const layout = cacheEntryLayout(root, cacheKey({ kubernetesVersion, ...goEnvironment }));
  const verifyChecksums = options.verifyChecksums ?? true;

  if (!options.force) {
    const existing = await tryVerify(layout, verifyChecksums);
    if (existing.binaries) return existing.binaries;
    if (options.build === false) {
      if (existing.error) throw existing.error;
      throw new ControlPlaneError(
        'BINARIES_MISSING',
        `no build of Kubernetes v${kubernetesVersion} in ${layout.entryDir}; run \`k-testenv build\` (a cold build takes a long time)`,
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
      const existing = await tryVerify(layout, true);
      if (existing.binaries) return existing.binaries;
    }
    await removeAbandonedBuilds(layout);
    await buildEntry(layout, kubernetesVersion, goEnvironment, progress);
    return await verifyCacheEntry(layout, true);
  } finally {
    await lock.release();
  }
}

async function tryVerify(
  layout: CacheEntryLayout,
  verifyChecksums: boolean,
): Promise<{ binaries?: Binaries; error?: ControlPlaneError }> {
  if (!existsSync(layout.entryDir)) return {};
  try {
    return { binaries: await verifyCacheEntry(layout, verifyChecksums) };
  } catch (error) {
    if (ControlPlaneError.isInstance(error)) return { error };
    throw error;
  }
}

async function buildEntry(
  layout: CacheEntryLayout,
  kubernetesVersion: string,
  goEnvironment: GoEnvironment,
  progress: ProgressSink,
): Promise<void> {
  const startedAt = Date.now();
  const work = await mkdtemp(join(layout.root, `.build-${layout.key}-`));
  const kubernetesDir = join(work, 'src', 'kubernetes');
  const etcdDir = join(work, 'src', 'etcd');
  const logDir = join(work, 'logs');
  const binDir = join(work, 'bin');
  await Promise.all(
    [kubernetesDir, etcdDir, logDir, binDir].map((dir) => mkdir(dir, { recursive: true })),
  );
  const env = goBuildEnvironment();
  const go = goEnvironment.go;
  // If this process dies mid-build (even by SIGKILL), the go commands must not build on for
  // minutes as orphans: the watchdog ends them and removes the temporary directory.
  const watchdog = await Watchdog.start(work);
  const step = (name: string, args: string[], cwd: string, logName: string, lowPriority = false) =>
    runCommand(go, args, {
      step: name,
      cwd,
      env,
      onProgress: progress,
      logPath: join(logDir, `${logName}.log`),
      lowPriority,
      onSpawn: (pid) => watchdog.watch(pid),
    });
  progress({
    kind: 'info',
    step: 'build',
    elapsedMs: 0,
    message: `building Kubernetes v${kubernetesVersion} with ${goEnvironment.goVersion} into ${layout.entryDir} (a cold build takes about 6-10 minutes and 2.5 GiB of memory on 2 cores; later builds reuse the Go caches)`,
  });
  try {
    const download = await step(
      'download k8s.io/kubernetes',
      ['mod', 'download', '-json', `k8s.io/kubernetes@v${kubernetesVersion}`],
      work,
      'download',
    );
    const downloaded = JSON.parse(download.stdout) as {
      GoMod?: string;
      Info?: string;
      Error?: string;
    };
    if (!downloaded.GoMod) {
      throw new ControlPlaneError(
        'BUILD_FAILED',
        `step "download k8s.io/kubernetes" gave no go.mod: ${downloaded.Error ?? download.stdout}`,
        {
          step: 'download k8s.io/kubernetes',
        },
      );
    }
    const releaseGoMod = await readFile(downloaded.GoMod, 'utf8');
    // The tag's commit time: a reproducible build date that matches the release.
    const info = downloaded.Info
      ? (JSON.parse(await readFile(downloaded.Info, 'utf8')) as { Time?: string })
      : {};
    const buildDate = toBuildDate(info.Time ? new Date(info.Time) : new Date());

    await writeFile(
      join(kubernetesDir, 'go.mod'),
      renderKubernetesWrapperGoMod({ kubernetesVersion, releaseGoMod, tools: KUBERNETES_COMMANDS }),
    );
    await step('go mod tidy (kubernetes)', ['mod', 'tidy'], kubernetesDir, 'kubernetes-tidy');
    await step(
      'go build kube-apiserver kube-controller-manager',
      [
        'build',
        '-trimpath',
        '-buildvcs=false',
        `-tags=${KUBERNETES_BUILD_TAGS}`,
        `-ldflags=${kubernetesLdflags(kubernetesVersion, buildDate)}`,
        '-o',
        `${binDir}/`,
        ...KUBERNETES_COMMANDS,
      ],
      kubernetesDir,
      'kubernetes-build',
      true,
    );

    const etcdVersion = etcdServerVersion(releaseGoMod);
    if (!etcdVersion) {
      throw new ControlPlaneError(
        'BUILD_FAILED',
        `k8s.io/kubernetes v${kubernetesVersion} does not require go.etcd.io/etcd/server/v3`,
        {
          step: 'etcd version',
        },
      );
    }
    await writeFile(
      join(etcdDir, 'go.mod'),
      renderEtcdWrapperGoMod({ etcdVersion, goVersion: parseGoDirective(releaseGoMod) }),
    );
    await step('go mod tidy (etcd)', ['mod', 'tidy'], etcdDir, 'etcd-tidy');
    await step(
      `go build etcd ${etcdVersion}`,
      [
        'build',
        '-trimpath',
        '-buildvcs=false',
        '-ldflags=-s -w',
        '-o',
        join(binDir, 'etcd'),
        'go.etcd.io/etcd/server/v3',
      ],
      etcdDir,
      'etcd-build',
      true,
    );

    await checkVersion(
      join(binDir, 'kube-apiserver'),
      ['--version'],
      `Kubernetes v${kubernetesVersion}`,
      progress,
    );
    await checkVersion(
      join(binDir, 'kube-controller-manager'),
      ['--version'],
      `Kubernetes v${kubernetesVersion}`,
      progress,
    );
    await checkVersion(
      join(binDir, 'etcd'),
      ['--version'],
      `etcd Version: ${etcdVersion.replace(/^v/, '')}`,
      progress,
    );

    const binaries = {} as Record<BinaryName, { sha256: string; size: number }>;
    for (const name of BINARY_NAMES) {
      const path = join(binDir, name);
      binaries[name] = { sha256: await sha256File(path), size: (await stat(path)).size };
    }
    const stamp: BuildStamp = {
      format: STAMP_FORMAT,
      key: layout.key,
      kubernetesVersion,
      etcdVersion,
      goVersion: goEnvironment.goVersion,
      goos: goEnvironment.goos,
      goarch: goEnvironment.goarch,
      builtAt: new Date().toISOString(),
      buildSeconds: Math.round((Date.now() - startedAt) / 1000),
      binaries,
    };
    // Last write of the build: its presence (with matching checksums) is what "finished" means.
    await writeFile(join(work, 'stamp.json'), `${JSON.stringify(stamp, null, 2)}\n`);
    await watchdog.disarm();
    await swapIntoPlace(work, layout);
    progress({
      kind: 'end',
      step: 'build',
      elapsedMs: Date.now() - startedAt,
      message: `done: ${layout.binDir}`,
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

function parseGoDirective(goMod: string): string {
  return /^go\s+(\S+)/m.exec(goMod)?.[1] ?? '1.24.0';
}

async function checkVersion(
  binary: string,
  args: string[],
  expected: string,
  progress: ProgressSink,
): Promise<void> {
  const step = `check ${binary.split('/').pop()} version`;
  const result = await runCommand(binary, args, { step, onProgress: progress });
  const output = result.stdout + result.stderr;
  if (!output.includes(expected)) {
    throw new ControlPlaneError(
      'BUILD_FAILED',
      `step "${step}" expected "${expected}" in the output`,
      { step, logTail: output },
    );
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
