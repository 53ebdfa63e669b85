/**
 * Start to ready of a test control plane, each start in a fresh process, from the binaries of the
 * warm cache (`~/.cache/k-testenv`, never built here):
 *
 * - tools/testenv `startControlPlane()` as the e2e suite starts it: etcd, kube-apiserver,
 *   kube-controller-manager (ready once the `default` ServiceAccount exists), kube-scheduler and
 *   kwok with 2 nodes; then with `nodes: 0`; then etcd and kube-apiserver alone;
 * - controller-runtime's envtest (bench/go/envtest, `sigs.k8s.io/controller-runtime` v0.25.3,
 *   built here and cached): `envtest.Environment{BinaryAssetsDirectory}` `Start()`/`Stop()` from
 *   the same kube-apiserver and etcd, hard-linked into a directory of setup-envtest's layout.
 *
 * Figures per variant: start → ready and stop (p50, p90, min, max of BENCH_ROUNDS fresh processes,
 * default 10, the variants interleaved with the order rotated every round, so load from other
 * work falls on all of them alike); the process's own start (node, tsx and the imports) before
 * the call; for the testenv variants the step split from the progress events (when each step
 * starts after the call and how long it takes). Then BENCH_TIMELINE_RUNS (default 3) extra starts
 * with `nodes: 0` poll kube-apiserver's `/readyz?verbose` every 50 ms from its spawn and report
 * when each check first said `ok`, which shows the post-start hooks that finish last. The
 * timeline runs are separate because their polling adds load to the start they watch.
 *
 *   npx tsx --conditions=@k/source bench/envtest-start.bench.ts
 *
 * Writes bench/results/envtest-start.md. BENCH_VARIANTS (a case-insensitive regular expression)
 * runs only the variants whose names match and prints the report without writing the file.
 * The machine is shared: the report gives the load average at the start, at the end and before
 * each sample.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { cpus, homedir, loadavg, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  ensureBinaries,
  kubeRequest as checkoutKubeRequest,
  resolveCacheRoot,
  startControlPlane as checkoutStartControlPlane,
  type ProgressEvent,
  type StartControlPlaneOptions,
} from '@k/testenv';
import type { EnvironmentOptions } from '@k/envtest';
import { format, loadAverage, median } from './figures.js';

const here = (name: string): string => fileURLToPath(new URL(name, import.meta.url));
const ROOT = here('..');
const SELF = here('./envtest-start.bench.ts');

/** Variant is one way to start a plane; `testenv` ones run in a child of this file. */
type Variant =
  | {
      readonly name: string;
      readonly key: string;
      readonly kind: 'testenv';
      readonly options: StartControlPlaneOptions;
      /** The engine's `src/index.ts` (a git ref's copy), or undefined for the checkout's `@k/testenv`. */
      readonly source?: string | undefined;
    }
  | {
      readonly name: string;
      readonly key: string;
      readonly kind: 'envtest';
      /** The options, given the setup-envtest directory and the engine's cache root. */
      readonly options: (assetsDir: string, cacheRoot: string) => EnvironmentOptions;
    }
  | { readonly name: string; readonly key: string; readonly kind: 'controller-runtime' };

const BASE_VARIANTS: readonly Variant[] = [
  {
    name: 'testenv `startControlPlane()`: full (controller-manager, scheduler, kwok with 2 nodes)',
    key: 'testenv-full',
    kind: 'testenv',
    options: {},
  },
  {
    name: 'testenv `startControlPlane({ nodes: 0 })` (controller-manager, scheduler)',
    key: 'testenv-nodes-0',
    kind: 'testenv',
    options: { nodes: 0 },
  },
  {
    name: 'testenv, etcd + kube-apiserver only (`controllerManager: false, scheduler: false, nodes: 0`)',
    key: 'testenv-apiserver-etcd',
    kind: 'testenv',
    options: { nodes: 0, controllerManager: false, scheduler: false },
  },
  // @k/envtest from the checkout (so never with BENCH_TESTENV_REFS' other refs): the cache's
  // binaries (the engine's cache root, where they are built), and the setup-envtest directory.
  {
    name: "@k/envtest `startEnvironment({ binaries: 'cache' })`: full (controller-manager, scheduler, kwok with 2 nodes)",
    key: 'envtest-full',
    kind: 'envtest',
    options: (_assetsDir, cacheRoot) => ({ binaries: 'cache', cacheRoot, build: false }),
  },
  {
    name: "@k/envtest `startEnvironment({ binaries: 'cache', nodes: 0 })` (controller-manager, scheduler)",
    key: 'envtest-nodes-0',
    kind: 'envtest',
    options: (_assetsDir, cacheRoot) => ({ binaries: 'cache', cacheRoot, build: false, nodes: 0 }),
  },
  {
    name: '@k/envtest `startEnvironment({ binaries: { directory } })`: the setup-envtest directory (etcd + kube-apiserver)',
    key: 'envtest-directory',
    kind: 'envtest',
    options: (assetsDir) => ({ binaries: { directory: assetsDir }, build: false }),
  },
  {
    name: 'controller-runtime v0.25.3 `envtest.Environment{BinaryAssetsDirectory}` (etcd + kube-apiserver)',
    key: 'controller-runtime',
    kind: 'controller-runtime',
  },
];

/** EngineEntry is what a child uses of an engine's `src/index.ts` (the checkout's or a ref's copy). */
interface EngineEntry {
  readonly startControlPlane: typeof checkoutStartControlPlane;
  readonly kubeRequest: typeof checkoutKubeRequest;
}

/** TIMELINE_OPTIONS start the planes whose `/readyz?verbose` is watched. */
const TIMELINE_OPTIONS: StartControlPlaneOptions = { nodes: 0 };

/** StepEvent is a progress event with its time after the start call, ms. */
interface StepEvent {
  readonly kind: ProgressEvent['kind'];
  readonly step: string;
  readonly atMs: number;
}

/** ChildFigures is the JSON line a child prints. */
interface ChildFigures {
  /** Time from the process's start to the start call (node, tsx, imports), ms. */
  readonly beforeCallMs?: number;
  readonly readyMs: number;
  readonly stopMs: number;
  readonly events?: readonly StepEvent[];
  /** Per `/readyz?verbose` check, ms after kube-apiserver's spawn when it first said ok. */
  readonly timeline?: Readonly<Record<string, number>>;
}

// ---------------------------------------------------------------------------------------------
// The child: one start and stop, measured from inside.

async function child(key: string, source: string | undefined, watchReadyz: boolean): Promise<void> {
  const envtestVariant = BASE_VARIANTS.find((candidate) => candidate.key === key);
  if (envtestVariant?.kind === 'envtest') return envtestChild(envtestVariant.options);
  const { startControlPlane, kubeRequest } = source
    ? ((await import(pathToFileURL(source).href)) as EngineEntry)
    : { startControlPlane: checkoutStartControlPlane, kubeRequest: checkoutKubeRequest };
  const beforeCallMs = performance.now();
  const variant = BASE_VARIANTS.find((candidate) => candidate.key === key);
  const options = watchReadyz
    ? TIMELINE_OPTIONS
    : variant?.kind === 'testenv'
      ? variant.options
      : undefined;
  if (!options) throw new Error(`no testenv variant ${key}`);
  const events: StepEvent[] = [];
  let startedAt = 0;
  let watcher: Promise<Record<string, number>> | undefined;
  const runDirParent = watchReadyz ? mkdtempSync(join(tmpdir(), 'k-bench-readyz-')) : undefined;
  const apiServerPort = watchReadyz ? await freePort() : undefined;
  const onProgress = (event: ProgressEvent): void => {
    events.push({ kind: event.kind, step: event.step, atMs: performance.now() - startedAt });
    if (
      runDirParent &&
      apiServerPort &&
      event.kind === 'start' &&
      event.step === 'start kube-apiserver'
    )
      watcher = watchReadyzChecks(kubeRequest, runDirParent, apiServerPort);
  };
  startedAt = performance.now();
  const plane = await startControlPlane({
    ...options,
    build: false,
    onProgress,
    ...(runDirParent ? { runDirParent, ports: { apiServer: apiServerPort } } : {}),
  });
  const readyMs = performance.now() - startedAt;
  const timeline = watcher ? await watcher : undefined;
  const stoppingAt = performance.now();
  await plane.stop();
  const stopMs = performance.now() - stoppingAt;
  if (runDirParent) rmSync(runDirParent, { recursive: true, force: true });
  const figures: ChildFigures = { beforeCallMs, readyMs, stopMs, events, timeline };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

/** envtestChild starts and stops one @k/envtest environment, measured as {@link child} does. */
async function envtestChild(
  options: (assetsDir: string, cacheRoot: string) => EnvironmentOptions,
): Promise<void> {
  const { startEnvironment } = await import('@k/envtest');
  const beforeCallMs = performance.now();
  const events: StepEvent[] = [];
  let startedAt = 0;
  const onProgress = (event: ProgressEvent): void => {
    events.push({ kind: event.kind, step: event.step, atMs: performance.now() - startedAt });
  };
  const given = options(process.env.BENCH_ASSETS_DIR ?? '', resolveCacheRoot());
  startedAt = performance.now();
  const environment = await startEnvironment({ ...given, onProgress });
  const readyMs = performance.now() - startedAt;
  const stoppingAt = performance.now();
  await environment.stop();
  const stopMs = performance.now() - stoppingAt;
  const figures: ChildFigures = { beforeCallMs, readyMs, stopMs, events };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

/** freePort is a loopback port that was free a moment ago. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/**
 * watchReadyzChecks polls `/readyz?verbose` as admin every 50 ms from kube-apiserver's spawn until
 * `/readyz` passes, and resolves with the time each check first said ok (plus `(listening)`, the
 * first answer of any kind, and `(ready)`).
 */
async function watchReadyzChecks(
  kubeRequest: EngineEntry['kubeRequest'],
  runDirParent: string,
  port: number,
): Promise<Record<string, number>> {
  const spawnedAt = performance.now();
  const runDir = join(runDirParent, readdirSync(runDirParent)[0] ?? '');
  const pki = join(runDir, 'pki');
  const caPem = readFileSync(join(pki, 'ca.crt'), 'utf8');
  const credentials = {
    certPem: readFileSync(join(pki, 'admin.crt'), 'utf8'),
    keyPem: readFileSync(join(pki, 'admin.key'), 'utf8'),
  };
  const firstOk: Record<string, number> = {};
  const deadline = spawnedAt + 120_000;
  while (performance.now() < deadline) {
    const polledAt = performance.now();
    const response = await kubeRequest({
      server: `https://127.0.0.1:${port}`,
      caPem,
      credentials,
      path: '/readyz?verbose',
      timeoutMs: 1000,
    }).catch(() => undefined);
    if (response) {
      // The time a check passed is bounded by this poll's send and its answer: take the send.
      const at = polledAt - spawnedAt;
      firstOk['(listening)'] ??= at;
      for (const line of response.body.split('\n')) {
        const match = /^\[\+\](\S+) ok/.exec(line);
        if (match) firstOk[match[1]] ??= at;
      }
      if (response.status === 200) {
        firstOk['(ready)'] = at;
        return firstOk;
      }
    }
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, 50 - (performance.now() - polledAt))),
    );
  }
  throw new Error('kube-apiserver was not ready within 120 s');
}

// ---------------------------------------------------------------------------------------------
// The parent: build, lay out the assets, run the samples interleaved, write the report.

/**
 * goEnvtestBinary builds bench/go/envtest once per content of its sources and Go version, into
 * the user cache (`$XDG_CACHE_HOME/k-bench` or `~/.cache/k-bench`).
 */
function goEnvtestBinary(): string {
  const source = here('./go/envtest/');
  const hash = createHash('sha256');
  for (const name of ['go.mod', 'go.sum', 'main.go']) hash.update(readFileSync(join(source, name)));
  hash.update(execFileSync('go', ['version'], { encoding: 'utf8' }));
  const cacheDir = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'k-bench');
  const binary = join(cacheDir, `envtest-go-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(binary)) return binary;
  mkdirSync(cacheDir, { recursive: true });
  process.stderr.write(`building ${source} (controller-runtime envtest) into ${binary}\n`);
  const partial = `${binary}.${process.pid}.tmp`;
  execFileSync('go', ['build', '-o', partial, '.'], {
    cwd: source,
    stdio: 'inherit',
    env: { ...process.env, GOTOOLCHAIN: 'local', GOWORK: 'off' },
  });
  renameSync(partial, binary);
  return binary;
}

/**
 * setupEnvtestAssets lays out `dir` as setup-envtest does (kube-apiserver, etcd, kubectl): hard
 * links to the cache entry's binaries (a copy across file systems) and kubectl from PATH.
 */
async function setupEnvtestAssets(dir: string): Promise<void> {
  const binaries = await ensureBinaries({ build: false, kwok: false });
  for (const [name, path] of [
    ['kube-apiserver', binaries.kubeApiServer],
    ['etcd', binaries.etcd],
  ] as const) {
    try {
      linkSync(path, join(dir, name));
    } catch {
      copyFileSync(path, join(dir, name));
    }
  }
  const kubectl = (process.env.PATH ?? '')
    .split(delimiter)
    .map((entry) => join(entry, 'kubectl'))
    .find((candidate) => existsSync(candidate));
  if (kubectl) symlinkSync(kubectl, join(dir, 'kubectl'));
}

/** Sample is one start and stop of a variant, with the 1-minute load average just before it. */
interface Sample extends ChildFigures {
  readonly load: number;
}

function runProcess(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<ChildFigures> {
  return new Promise((resolve, reject) => {
    const started = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    started.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    started.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    started.once('error', reject);
    started.once('close', (code, signal) => {
      const last = stdout.trim().split('\n').at(-1) ?? '';
      if (code === 0 && last.startsWith('{')) resolve(JSON.parse(last) as ChildFigures);
      else
        reject(
          new Error(
            `${command} ${args.join(' ')} ended with ${signal ?? `code ${code}`}:\n${stderr.slice(-4000)}`,
          ),
        );
    });
  });
}

function runSample(variant: Variant, goBinary: string, assetsDir: string): Promise<ChildFigures> {
  const env = { ...process.env };
  delete env.KUBEBUILDER_ASSETS;
  delete env.K_TESTENV_KUBECONFIG;
  delete env.K_ENVTEST_KUBECONFIG;
  env.BENCH_ASSETS_DIR = assetsDir;
  if (variant.kind === 'controller-runtime')
    return runProcess(goBinary, ['-assets', assetsDir], env);
  return runProcess(
    process.execPath,
    childArguments(
      variant.key.split('@')[0],
      variant.kind === 'testenv' ? variant.source : undefined,
    ),
    env,
  );
}

/** childArguments run this file as the child for `key` (a base variant's key) from `source`. */
function childArguments(key: string, source: string | undefined, ...more: string[]): string[] {
  return [
    '--import',
    'tsx',
    '--conditions=@k/source',
    SELF,
    '--child',
    key,
    ...(source ? ['--source', source] : []),
    ...more,
  ];
}

/**
 * testenvSources are the engines to measure: `working` is the checkout's `@k/testenv`; any other
 * entry is a git ref whose tools/testenv is extracted into `dir` (the engine imports only node:
 * built-ins, so its copy runs alone), e.g. `BENCH_TESTENV_REFS=e514d95,working` for before/after.
 */
function testenvSources(
  refs: readonly string[],
  dir: string,
): { label: string; source?: string }[] {
  return refs.map((ref) => {
    if (ref === 'working') return { label: '' };
    const target = join(dir, ref.replace(/[^\w.-]/g, '_'));
    mkdirSync(target, { recursive: true });
    execFileSync(
      'sh',
      ['-c', `git archive "$1" tools/testenv | tar -x -C "$2"`, 'sh', ref, target],
      {
        cwd: ROOT,
      },
    );
    return { label: ref, source: join(target, 'tools/testenv/src/index.ts') };
  });
}

/**
 * expandVariants makes one testenv variant per engine source, the @k/envtest ones when the
 * checkout is among the sources (they run on its engine), the controller-runtime one once.
 */
function expandVariants(sources: readonly { label: string; source?: string }[]): Variant[] {
  const checkout = sources.some(({ label }) => label === '');
  return BASE_VARIANTS.flatMap((variant): Variant[] => {
    if (variant.kind === 'envtest') return checkout ? [variant] : [];
    if (variant.kind !== 'testenv') return [variant];
    return sources.map(({ label, source }) =>
      label
        ? {
            ...variant,
            name: variant.name.replace(/^testenv/, `testenv at ${label}`),
            key: `${variant.key}@${label}`,
            source,
          }
        : variant,
    );
  });
}

/** percentile is the nearest-rank `p` percentile of `values` (p90 of 10 is the 9th smallest). */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

const seconds = (ms: number, digits = 2): string => format(ms / 1000, digits);
const millis = (ms: number): string => format(ms, 0);

/** stepRows are the step split of `samples`: each step's start after the call and its duration. */
function stepRows(samples: readonly Sample[]): string[] {
  const starts = new Map<string, number[]>();
  const durations = new Map<string, number[]>();
  for (const sample of samples) {
    const open = new Map<string, number>();
    for (const event of sample.events ?? []) {
      if (event.kind === 'start') {
        open.set(event.step, event.atMs);
        if (!starts.has(event.step)) starts.set(event.step, []);
        starts.get(event.step)!.push(event.atMs);
      } else if (event.kind === 'end' && open.has(event.step)) {
        if (!durations.has(event.step)) durations.set(event.step, []);
        durations.get(event.step)!.push(event.atMs - open.get(event.step)!);
        open.delete(event.step);
      }
    }
  }
  const ready = samples.map((sample) => sample.readyMs);
  return [
    '| step | starts after the call, p50 ms | takes p50 ms | p90 ms | min | max |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...[...starts.entries()]
      .sort((a, b) => median(a[1]) - median(b[1]))
      .map(([step, at]) => {
        const taken = durations.get(step) ?? [];
        return `| ${step} | ${millis(median(at))} | ${millis(median(taken))} | ${millis(percentile(taken, 90))} | ${millis(Math.min(...taken))} | ${millis(Math.max(...taken))} |`;
      }),
    `| (ready: the call resolves) | | ${millis(median(ready))} | ${millis(percentile(ready, 90))} | ${millis(Math.min(...ready))} | ${millis(Math.max(...ready))} |`,
  ];
}

function timelineRows(timelines: readonly Readonly<Record<string, number>>[]): string[] {
  const checks = new Map<string, number[]>();
  for (const timeline of timelines)
    for (const [check, at] of Object.entries(timeline)) {
      if (!checks.has(check)) checks.set(check, []);
      checks.get(check)!.push(at);
    }
  return [
    `| check | first ok after kube-apiserver's spawn, p50 ms | min | max |`,
    '| --- | ---: | ---: | ---: |',
    ...[...checks.entries()]
      .sort((a, b) => median(a[1]) - median(b[1]))
      .map(
        ([check, at]) =>
          `| ${check} | ${millis(median(at))} | ${millis(Math.min(...at))} | ${millis(Math.max(...at))} |`,
      ),
  ];
}

async function main(): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 10);
  const timelineRuns = Number(process.env.BENCH_TIMELINE_RUNS ?? 3);
  const only = process.env.BENCH_VARIANTS ? new RegExp(process.env.BENCH_VARIANTS, 'i') : undefined;
  const refs = (process.env.BENCH_TESTENV_REFS ?? 'working').split(',').filter(Boolean);
  const goBinary = goEnvtestBinary();
  const workDir = mkdtempSync(join(tmpdir(), 'k-bench-envtest-'));
  const assetsDir = join(workDir, 'assets');
  mkdirSync(assetsDir);
  try {
    const sources = testenvSources(refs, join(workDir, 'sources'));
    const variants = expandVariants(sources).filter((variant) => !only || only.test(variant.name));
    await setupEnvtestAssets(assetsDir);
    const startLoad = loadAverage();
    const samples = new Map<string, Sample[]>(variants.map((variant) => [variant.key, []]));
    for (let round = 0; round < rounds; round++) {
      for (let index = 0; index < variants.length; index++) {
        const variant = variants[(index + round) % variants.length];
        const load = loadavg()[0];
        const figures = await runSample(variant, goBinary, assetsDir);
        samples.get(variant.key)!.push({ ...figures, load });
        process.stderr.write(
          `round ${round + 1}/${rounds} ${variant.key}: ready ${millis(figures.readyMs)} ms, stop ${millis(figures.stopMs)} ms (load ${load.toFixed(2)})\n`,
        );
      }
    }
    const timelines: Readonly<Record<string, number>>[] = [];
    for (let run = 0; run < timelineRuns; run++) {
      const figures = await runProcess(
        process.execPath,
        childArguments('timeline', sources[0]?.source, '--readyz'),
        { ...process.env },
      );
      if (figures.timeline) timelines.push(figures.timeline);
      process.stderr.write(
        `timeline ${run + 1}/${timelineRuns}: ready ${millis(figures.readyMs)} ms\n`,
      );
    }
    const endLoad = loadAverage();
    const loads = [...samples.values()].flat().map((sample) => sample.load);
    const lines = [
      '# Benchmark: start → ready of a test control plane (tools/testenv and controller-runtime envtest)',
      '',
      'Generated by `npx tsx --conditions=@k/source bench/envtest-start.bench.ts` (see the file header).',
      '',
      `Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}, commit ${gitCommit()}; load average ${startLoad} at the start and ${endLoad} at the end; the 1-minute load before each sample was ${format(Math.min(...loads), 2)}–${format(Math.max(...loads), 2)} (median ${format(median(loads), 2)}). The machine is shared with other sessions' control planes and tests: compare figures only within this report.`,
      `Kubernetes v1.37.2 and etcd from the warm cache (built here with Go 1.26.8; never rebuilt by this benchmark), kwok v0.8.0. The engine: ${refs.map((ref) => (ref === 'working' ? 'tools/testenv as checked out' : `tools/testenv at ${ref}`)).join(' and ')}. ${rounds} fresh processes per variant, interleaved (the order rotates every round).`,
      '',
      '## Start → ready and stop',
      '',
      '"Before the call" is the fresh process\'s own start until the start call (node, tsx, imports; the Go program\'s is not measured). Start → ready is the call until it resolves with a ready plane; stop is `stop()` until it resolves (every process gone, the run directory removed).',
      '',
      '| variant | start → ready p50 s | p90 s | min s | max s | stop p50 s | stop p90 s | before the call p50 s |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...variants.map((variant) => {
        const rows = samples.get(variant.key)!;
        const ready = rows.map((sample) => sample.readyMs);
        const stop = rows.map((sample) => sample.stopMs);
        const before = rows.flatMap((sample) =>
          sample.beforeCallMs === undefined ? [] : [sample.beforeCallMs],
        );
        return `| ${variant.name} | ${seconds(median(ready))} | ${seconds(percentile(ready, 90))} | ${seconds(Math.min(...ready))} | ${seconds(Math.max(...ready))} | ${seconds(median(stop))} | ${seconds(percentile(stop, 90))} | ${before.length > 0 ? seconds(median(before)) : '–'} |`;
      }),
      '',
      'Every sample, start → ready in ms, in run order:',
      '',
      ...variants.map(
        (variant) =>
          `- ${variant.key}: ${samples
            .get(variant.key)!
            .map((sample) => millis(sample.readyMs))
            .join(', ')}`,
      ),
      '',
      '## Step split (progress events)',
      '',
      "From the `onProgress` events of `startControlPlane` (`startEnvironment` passes the engine's on): when each step starts after the call and how long it takes, p50 over the samples. `start <component>` runs from its spawn until its readiness check passes; the controllers' steps run side by side. What runs outside a step shows as a gap: at e514d95 the cache entry was verified (sha256 of every file) beside the PKI (`certificates`) before `start etcd`, and readiness was polled every 150 ms.",
      '',
      ...variants
        .filter((variant) => variant.kind !== 'controller-runtime')
        .flatMap((variant) => [
          `### ${variant.name}`,
          '',
          ...stepRows(samples.get(variant.key)!),
          '',
        ]),
      `## kube-apiserver's \`/readyz?verbose\` timeline`,
      '',
      `${timelines.length} further starts with \`nodes: 0\` (${sources[0]?.label ? `tools/testenv at ${sources[0].label}` : 'tools/testenv as checked out'}), each polling \`/readyz?verbose\` as admin every 50 ms from kube-apiserver's spawn (the \`start kube-apiserver\` event) until \`/readyz\` passes. Each check's time is the send time of the first poll whose answer listed it ok (so up to ~50 ms late); \`(listening)\` is the first answer of any kind and \`(ready)\` the first 200. The checks are in the order they passed: the last ones are what kube-apiserver's readiness waits for.`,
      '',
      ...timelineRows(timelines),
      '',
    ];
    const report = lines.join('\n');
    if (!only) writeFileSync(here('./results/envtest-start.md'), report);
    process.stdout.write(report);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim();
  } catch {
    return 'unknown';
  }
}

const sourceIndex = process.argv.indexOf('--source');
if (process.argv[2] === '--child')
  await child(
    process.argv[3] ?? '',
    sourceIndex > 0 ? process.argv[sourceIndex + 1] : undefined,
    process.argv.includes('--readyz'),
  );
else await main();
