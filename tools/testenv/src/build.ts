import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { acquireBuildLock } from './build-lock.js';
import {
  BINARY_NAMES,
  cacheEntryLayout,
  cacheKey,
  resolveCacheRoot,
  type BinaryName,
  type CacheEntryLayout,
} from './cache-layout.js';
import { ControlPlaneError } from './errors.js';
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
const STAMP_FORMAT = 1;

/** BuildStamp is the completion record of a cache entry, written after everything else. */
export interface BuildStamp {
  readonly format: number;
  readonly key: string;
  readonly kubernetesVersion: string;
  readonly etcdVersion: string;
  readonly goVersion: string;
  readonly goos: string;
  readonly goarch: string;
  readonly builtAt: string;
  readonly buildSeconds: number;
  readonly binaries: Readonly<
    Record<BinaryName, { readonly sha256: string; readonly size: number }>
  >;
}

/** Binaries are the absolute paths of a verified cache entry's executables. */
export interface Binaries {
  readonly etcd: string;
  readonly kubeApiServer: string;
  readonly kubeControllerManager: string;
  readonly entryDir: string;
  readonly stamp: BuildStamp;
}

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

/** GoEnvironment is what the build needs to know about the Go toolchain. */
export interface GoEnvironment {
  readonly go: string;
  readonly goVersion: string;
  readonly goos: string;
  readonly goarch: string;
  readonly gomodcache: string;
  readonly gocache: string;
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

/**
 * verifyCacheEntry checks that a cache entry is complete: its stamp exists, names this entry, and
 * every binary has the recorded size (and, with `verifyChecksums`, SHA-256). Throws CACHE_CORRUPT
 * with what differs.
 */
export async function verifyCacheEntry(
  layout: CacheEntryLayout,
  verifyChecksums = true,
): Promise<Binaries> {
  const corrupt = (detail: string) =>
    new ControlPlaneError(
      'CACHE_CORRUPT',
      `cache entry ${layout.entryDir} is not a finished build: ${detail}; run \`k-testenv build\` to rebuild it`,
      { step: 'verify cache' },
    );
  let stamp: BuildStamp;
  try {
    stamp = JSON.parse(await readFile(layout.stampPath, 'utf8')) as BuildStamp;
  } catch (error) {
    throw corrupt(`cannot read ${layout.stampPath} (${(error as Error).message})`);
  }
  if (
    stamp.format !== STAMP_FORMAT ||
    stamp.key !== layout.key ||
    typeof stamp.binaries !== 'object'
  ) {
    throw corrupt(`stamp ${layout.stampPath} belongs to ${String(stamp.key)}`);
  }
  await Promise.all(
    BINARY_NAMES.map(async (name) => {
      const expected = stamp.binaries[name];
      const path = join(layout.binDir, name);
      if (!expected) throw corrupt(`stamp has no entry for ${name}`);
      let size: number;
      try {
        size = (await stat(path)).size;
      } catch {
        throw corrupt(`${path} is missing`);
      }
      if (size !== expected.size)
        throw corrupt(`${path} has ${size} bytes, the stamp says ${expected.size}`);
      if (verifyChecksums) {
        const actual = await sha256File(path);
        if (actual !== expected.sha256)
          throw corrupt(`${path} has sha256 ${actual}, the stamp says ${expected.sha256}`);
      }
    }),
  );
  return {
    etcd: join(layout.binDir, 'etcd'),
    kubeApiServer: join(layout.binDir, 'kube-apiserver'),
    kubeControllerManager: join(layout.binDir, 'kube-controller-manager'),
    entryDir: layout.entryDir,
    stamp,
  };
}

/** sha256File returns the hex SHA-256 of a file, streamed. */
export function sha256File(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

/** findGo returns the go executable to use: `go` on PATH, else /usr/local/go/bin/go, else `go`. */
export function findGo(env: NodeJS.ProcessEnv = process.env): string {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'go'))) return join(dir, 'go');
  }
  return existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : 'go';
}

/** goBuildEnvironment is the environment of every go command: local toolchain only, no cgo. */
export function goBuildEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  // GOFLAGS from the user (e.g. -mod=vendor) would change what is built; the flags are explicit here.
  return { ...env, GOTOOLCHAIN: 'local', CGO_ENABLED: '0', GOFLAGS: '', GOWORK: 'off' };
}

/** readGoEnvironment asks the toolchain for its version, platform and caches (GO_UNAVAILABLE if it cannot). */
export async function readGoEnvironment(go: string = findGo()): Promise<GoEnvironment> {
  let output: string;
  try {
    output = (
      await runCommand(
        go,
        ['env', '-json', 'GOVERSION', 'GOOS', 'GOARCH', 'GOMODCACHE', 'GOCACHE'],
        {
          step: 'go env',
          env: goBuildEnvironment(),
          errorCode: 'GO_UNAVAILABLE',
        },
      )
    ).stdout;
  } catch (error) {
    throw new ControlPlaneError(
      'GO_UNAVAILABLE',
      `cannot run the Go toolchain (${go}); install Go 1.26 or put it on PATH`,
      {
        step: 'go env',
        cause: error,
      },
    );
  }
  const values = JSON.parse(output) as Record<string, string>;
  return {
    go,
    goVersion: values.GOVERSION ?? 'unknown',
    goos: values.GOOS ?? 'unknown',
    goarch: values.GOARCH ?? 'unknown',
    gomodcache: values.GOMODCACHE ?? '',
    gocache: values.GOCACHE ?? '',
  };
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
