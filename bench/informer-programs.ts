/**
 * The child-process machinery of the informer benchmarks (informer-memory, informer-pods): each
 * informer runs in a fresh process that prints one JSON line of {@link SyncedFigures} once
 * synced and, when it was asked to count updates, a second line of {@link UpdateFigures}.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Clientset, KubernetesObject } from '@k/clientset';
import { startControlPlane, type ControlPlane } from '@k/testenv';
import { median } from './figures.js';

/** BenchCluster is what {@link withBenchCluster} hands its benchmark. */
export interface BenchCluster {
  plane: ControlPlane;
  /** cs is an unthrottled admin clientset on the plane. */
  cs: Clientset;
  namespace: string;
  /** workDir is a fresh directory for the programs (removed afterwards). */
  workDir: string;
  /** env is the programs' environment: KUBECONFIG, BENCH_NAMESPACE, HOME in workDir. */
  env: NodeJS.ProcessEnv;
  /**
   * collectServerGarbage makes kube-apiserver run a full Go garbage collection and waits for it
   * (pprof's heap profile with `gc=1`). Each 10,000-Pod list allocates about 170 MB in the server,
   * so without this a collection (some 0.35 s of its CPU on these 2 cores) fell into every other
   * program's sync, whichever program that was.
   */
  collectServerGarbage: () => Promise<void>;
}

/**
 * withBenchCluster starts a control plane of its own (no nodes, scheduler or controller
 * manager, so nothing but the benchmark writes), creates the namespace `bench-<name>` and runs
 * `run`; then it stops the plane and removes the work directory `bench/.tmp-<name>/`.
 */
export async function withBenchCluster<R>(
  name: string,
  run: (cluster: BenchCluster) => Promise<R>,
): Promise<R> {
  const workDir = fileURLToPath(new URL(`./.tmp-${name}/`, import.meta.url));
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  const plane = await startControlPlane({
    nodes: 0,
    controllerManager: false,
    scheduler: false,
    // For collectServerGarbage: pprof's endpoints.
    extraApiServerFlags: ['--profiling=true'],
  });
  try {
    // Loaded here, not at the top: the lint keeps @k/clientset lazily loaded in bench/.
    const { inferClientset } = await import('@k/clientset');
    const cs = await inferClientset({
      kubeconfig: plane.kubeconfigPath,
      context: 'admin',
      throttle: 'off',
    });
    const namespace = `bench-${name}`;
    try {
      await cs.coreV1
        .namespaces()
        .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
      const env = {
        PATH: process.env.PATH,
        HOME: workDir,
        KUBECONFIG: plane.kubeconfigPath,
        BENCH_NAMESPACE: namespace,
      };
      const collectServerGarbage = async (): Promise<void> => {
        await cs.rest.get().absPath('/debug/pprof/heap').param('gc', 1).executeRaw();
      };
      return await run({ plane, cs, namespace, workDir, env, collectServerGarbage });
    } finally {
      await cs.close();
    }
  } finally {
    await plane.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** listShape is the size of a list's JSON and the share of it that is managedFields, in percent. */
export function listShape(items: readonly KubernetesObject[]): {
  megabytes: number;
  managedFieldsPercent: number;
} {
  const bytes = Buffer.byteLength(JSON.stringify({ items }));
  const managedFieldsBytes = items.reduce(
    (sum, item) => sum + Buffer.byteLength(JSON.stringify(item.metadata?.managedFields ?? [])),
    0,
  );
  return { megabytes: bytes / 1e6, managedFieldsPercent: (100 * managedFieldsBytes) / bytes };
}

/**
 * MEASURE is the prelude of every Node program: a full GC, then `globalThis.report(objects)`
 * prints the synced figures (time and CPU time since the prelude, peak RSS, RSS and heap after a full GC, heap
 * per 1,000 objects over the heap before) and starts the CPU clock; `globalThis.updated()` counts
 * one update event. Updates come in two batches: BENCH_WARMUP_UPDATES first, then BENCH_UPDATES
 * (`expectedUpdates` is both together); once all arrived it prints the CPU time per event of
 * each batch and resolves `globalThis.allUpdated`.
 */
const MEASURE = `
const namespace = process.env.BENCH_NAMESPACE;
const warmupUpdates = Number(process.env.BENCH_WARMUP_UPDATES ?? 0);
const expectedUpdates = warmupUpdates + Number(process.env.BENCH_UPDATES ?? 0);
const mb = (bytes) => bytes / 1e6;
const cpuMicros = () => { const usage = process.cpuUsage(); return usage.user + usage.system; };
globalThis.gc(); globalThis.gc();
const before = process.memoryUsage();
let updates = 0;
let cpuAtSync = 0;
let cpuAtWarm = 0;
let resolveUpdated;
globalThis.allUpdated = new Promise((resolve) => (resolveUpdated = resolve));
globalThis.updated = () => {
  updates += 1;
  if (updates === warmupUpdates) cpuAtWarm = cpuMicros();
  if (updates !== expectedUpdates) return;
  const measured = expectedUpdates - warmupUpdates;
  const cpuPerUpdateUs = (cpuMicros() - (warmupUpdates > 0 ? cpuAtWarm : cpuAtSync)) / measured;
  const cpuPerWarmupUpdateUs = warmupUpdates > 0 ? (cpuAtWarm - cpuAtSync) / warmupUpdates : null;
  process.stdout.write(JSON.stringify({ updates: measured, cpuPerUpdateUs, cpuPerWarmupUpdateUs }) + '\\n');
  resolveUpdated();
};
globalThis.benchStart = performance.now();
const cpuAtStart = cpuMicros();
globalThis.report = (objects) => {
  const syncedMs = performance.now() - globalThis.benchStart;
  const cpuToSyncedMs = (cpuMicros() - cpuAtStart) / 1000;
  const peakRssMb = (process.resourceUsage().maxRSS * 1024) / 1e6;
  globalThis.gc(); globalThis.gc();
  const after = process.memoryUsage();
  process.stdout.write(JSON.stringify({
    objects,
    syncedMs,
    cpuToSyncedMs,
    peakRssMb,
    rssAfterGcMb: mb(after.rss),
    heapAfterGcMb: mb(after.heapUsed),
    heapPerThousandMb: mb(after.heapUsed - before.heapUsed) / (objects / 1000),
  }) + '\\n');
  cpuAtSync = cpuMicros();
};
`;

/** NodeInformerProgram is a Node program: `setup` (imports, clients), then the measured `run`. */
export interface NodeInformerProgram {
  name: string;
  setup: string;
  run: string;
}

/** K_SETUP creates an unthrottled @k/clientset from KUBECONFIG for the `kInformerRun` programs. */
export const K_SETUP = `import { inferClientset } from '@k/clientset';
import { Informer } from '@k/runtime/informer';
const cs = await inferClientset({ throttle: 'off' });`;

/** kInformerRun runs an @k/runtime Informer over `client` (an expression) with `options` (a literal). */
export function kInformerRun(client: string, options: string): string {
  return `const informer = new Informer(${client}, ${options});
informer.addEventHandler({ onUpdate: () => globalThis.updated() });
informer.start();
await informer.waitForSync();
globalThis.report(informer.lister.size);
if (expectedUpdates > 0) await globalThis.allUpdated;
await informer.stop();
await cs.close();`;
}

/** CLIENT_NODE_SETUP loads a client-node KubeConfig from KUBECONFIG and its CoreV1Api as `core`. */
export const CLIENT_NODE_SETUP = `import * as k8s from '@kubernetes/client-node';
const config = new k8s.KubeConfig();
config.loadFromDefault();
const core = config.makeApiClient(k8s.CoreV1Api);`;

/** clientNodeInformerRun runs client-node's `makeInformer` over `path` listed by `list` (expressions). */
export function clientNodeInformerRun(path: string, list: string): string {
  return `const informer = k8s.makeInformer(config, ${path}, () => ${list});
informer.on('error', () => {});
informer.on('update', () => globalThis.updated());
await informer.start();
globalThis.report(informer.list().length);
if (expectedUpdates > 0) await globalThis.allUpdated;
await informer.stop();`;
}

/** InformerProgram is a command to run, fresh each time. */
export interface InformerProgram {
  name: string;
  command: string;
  args: readonly string[];
}

/** writeNodePrograms writes each program as `informer-N.mjs` in `directory` (run with --expose-gc). */
export function writeNodePrograms(
  directory: string,
  programs: readonly NodeInformerProgram[],
): InformerProgram[] {
  return programs.map((program, index) => {
    const file = join(directory, `informer-${index}.mjs`);
    writeFileSync(file, `${program.setup}\n${MEASURE}\n${program.run}\n`);
    return { name: program.name, command: process.execPath, args: ['--expose-gc', file] };
  });
}

/** SyncedFigures are what a program reports once its informer synced. */
export interface SyncedFigures {
  objects: number;
  syncedMs: number;
  /** cpuToSyncedMs is the process's CPU time (user + system, every thread) from start to synced. */
  cpuToSyncedMs: number;
  peakRssMb: number;
  rssAfterGcMb: number;
  heapAfterGcMb: number;
  heapPerThousandMb: number;
}

/**
 * processCpuMs is the CPU time (user + system, every thread) a running process has used, from
 * /proc/<pid>/stat (Linux; clock ticks of 10 ms).
 */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name, in parentheses, may hold spaces: fields are counted after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * UpdateFigures are what a program reports once it received every update event asked for:
 * `updates` measured ones after the warm-up ones, and the CPU time per event of each batch (the
 * warm-up's is null when there was none).
 */
export interface UpdateFigures {
  updates: number;
  cpuPerUpdateUs: number;
  cpuPerWarmupUpdateUs: number | null;
}

/**
 * ProgramFigures are one run's figures; `cpuPerUpdateUs` only when updates were counted,
 * `serverCpuToSyncedMs` (the API server's CPU time from the program's start to its synced line)
 * only when the server's pid was given.
 */
export type ProgramFigures = SyncedFigures &
  Partial<UpdateFigures> & { serverCpuToSyncedMs?: number };

/** RunOptions say what a run must show and what to do once its informer synced. */
export interface RunOptions {
  env: NodeJS.ProcessEnv;
  expectedObjects: number;
  /** afterSynced runs once the synced line arrived (e.g. to change the objects it watches). */
  afterSynced?: () => Promise<void>;
  /** expectedUpdates: the second line must report this many (measured) updates. */
  expectedUpdates?: number;
  timeoutMs?: number;
  /** serverPid is the API server's process, to measure its CPU time until synced. */
  serverPid?: number;
  /** beforeStart runs before each program starts (e.g. `collectServerGarbage`). */
  beforeStart?: () => Promise<void>;
}

/** runInformerProgram runs `program` once and returns its figures; a failure or a wrong count throws. */
export async function runInformerProgram(
  program: InformerProgram,
  options: RunOptions,
): Promise<ProgramFigures> {
  await options.beforeStart?.();
  const child = spawn(program.command, program.args, {
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const serverPid = options.serverPid;
  const serverCpuAtStart = serverPid === undefined ? 0 : processCpuMs(serverPid);
  let serverCpuToSyncedMs: number | undefined;
  let stdout = '';
  let stderr = '';
  let afterSynced: Promise<void> | undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (!afterSynced && stdout.includes('\n')) {
      if (serverPid !== undefined) serverCpuToSyncedMs = processCpuMs(serverPid) - serverCpuAtStart;
      afterSynced = (options.afterSynced?.() ?? Promise.resolve()).catch((error: unknown) => {
        child.kill('SIGKILL');
        throw error;
      });
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 300_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  await afterSynced;
  if (code !== 0) throw new Error(`${program.name} exited with ${code}: ${stderr}`);
  const [syncedLine, updateLine] = stdout.trim().split('\n');
  const figures: ProgramFigures = {
    ...(JSON.parse(syncedLine) as SyncedFigures),
    ...(serverCpuToSyncedMs !== undefined ? { serverCpuToSyncedMs } : {}),
  };
  if (figures.objects !== options.expectedObjects) {
    throw new Error(`${program.name} cached ${figures.objects} objects`);
  }
  if (options.expectedUpdates === undefined) return figures;
  const updates = JSON.parse(updateLine ?? 'null') as UpdateFigures | null;
  if (updates?.updates !== options.expectedUpdates) {
    throw new Error(`${program.name} reported ${updateLine ?? 'no updates'}`);
  }
  return { ...figures, ...updates };
}

/**
 * runInterleaved runs every program once to warm up and check it, then `rounds` rounds in which
 * each program runs once, the order rotating every round, so load from other work falls on
 * every program alike. Returns the median of each figure per program.
 */
export async function runInterleaved(
  programs: readonly InformerProgram[],
  rounds: number,
  options: RunOptions,
): Promise<ProgramFigures[]> {
  for (const program of programs) await runInformerProgram(program, options);
  const results: ProgramFigures[][] = programs.map(() => []);
  for (let round = 0; round < rounds; round += 1) {
    for (let offset = 0; offset < programs.length; offset += 1) {
      const index = (round + offset) % programs.length;
      results[index].push(await runInformerProgram(programs[index], options));
    }
  }
  return results.map((all) => {
    const pick = (key: keyof ProgramFigures): number =>
      median(all.map((result) => result[key] ?? Number.NaN));
    return {
      objects: pick('objects'),
      syncedMs: pick('syncedMs'),
      cpuToSyncedMs: pick('cpuToSyncedMs'),
      peakRssMb: pick('peakRssMb'),
      rssAfterGcMb: pick('rssAfterGcMb'),
      heapAfterGcMb: pick('heapAfterGcMb'),
      heapPerThousandMb: pick('heapPerThousandMb'),
      ...(options.expectedUpdates !== undefined
        ? {
            updates: pick('updates'),
            cpuPerUpdateUs: pick('cpuPerUpdateUs'),
            cpuPerWarmupUpdateUs: pick('cpuPerWarmupUpdateUs'),
          }
        : {}),
      ...(options.serverPid !== undefined
        ? { serverCpuToSyncedMs: pick('serverCpuToSyncedMs') }
        : {}),
    };
  });
}
