/**
 * kubeconfig-load.bench.ts measures loading and merging three kubeconfig files of 1,000
 * clusters, users and contexts each with @k/config's `loadKubeconfig`, against
 * @kubernetes/client-node's `KubeConfig.loadFromDefault` (its KUBECONFIG multi-file path:
 * `loadFromFile` of each, then `mergeConfig`), with raw `yaml` and `js-yaml` parses of the
 * same files as floors. Writes bench/results/kubeconfig-load.md.
 *
 *   npx tsx --conditions=@k/source bench/kubeconfig-load.bench.ts [--rounds N] [--scaling]
 *
 * Timing runs in rounds that rotate the order of the tasks, so a noisy machine slows each
 * about equally; memory is measured once per task in a fresh child process.
 */
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, cpus, loadavg, totalmem } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { KubeConfig } from '@kubernetes/client-node';
import { loadKubeconfig } from '@k/config';
import { Bench } from 'tinybench';
import { parse as parseYaml } from 'yaml';
import type { KubeconfigSet } from './generate-kubeconfigs.js';
import { writeKubeconfigSet } from './generate-kubeconfigs.js';

const benchDirectory = dirname(fileURLToPath(import.meta.url));
const repositoryRoot = dirname(benchDirectory);

// js-yaml is client-node's parser; take the copy client-node itself resolves.
const requireFromClientNode = createRequire(import.meta.resolve('@kubernetes/client-node'));
const jsYaml = requireFromClientNode('js-yaml') as { load(text: string): unknown };

/** A task loads the files it is given and returns what it built, so nothing is optimised away. */
type Task = (paths: readonly string[]) => Promise<unknown>;

const TASKS: Record<string, Task> = {
  '@k/config loadKubeconfig': (paths) =>
    loadKubeconfig({ env: { KUBECONFIG: paths.join(delimiter) } }),
  '@kubernetes/client-node loadFromDefault': (paths) => {
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = paths.join(delimiter);
    try {
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromDefault();
      return Promise.resolve(kubeConfig);
    } finally {
      if (saved === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = saved;
    }
  },
  'floor: yaml parse (k parser)': async (paths) =>
    Promise.all(
      paths.map(async (path): Promise<unknown> =>
        parseYaml(await readFile(path, 'utf8'), { version: '1.1', uniqueKeys: false }),
      ),
    ),
  'floor: js-yaml load (client-node parser)': async (paths) =>
    Promise.all(paths.map(async (path) => jsYaml.load(await readFile(path, 'utf8')))),
};
const K = '@k/config loadKubeconfig';
const CLIENT_NODE = '@kubernetes/client-node loadFromDefault';

interface Timing {
  samples: number[];
  cpuSamples: number[];
}

/** Memory is one load's growth: heap in use when it returns, heap still held after a full GC, peak RSS. */
interface Memory {
  heapAtEndMb: number;
  heapKeptMb: number;
  rssPeakDeltaMb: number;
}

if (process.argv[2] === '--memory-child') {
  await memoryChild(process.argv[3] ?? '', process.argv.slice(4));
} else {
  await main();
}

async function main() {
  const rounds = Number(option('--rounds') ?? 8);
  const [startLoad = 0] = loadavg();
  const started = Date.now();

  const distinct = writeKubeconfigSet({ files: 3, entries: 1000 });
  const overlapping = writeKubeconfigSet({ files: 3, entries: 1000, overlap: 200, seed: 2 });
  try {
    const timings = await timeTasks(TASKS, distinct.paths, rounds, 3);
    const memory = Object.fromEntries(
      Object.keys(TASKS).map((name) => [name, measureMemory(name, distinct.paths)]),
    );
    const overlapTimings = await timeTasks(
      { [K]: entryOf(TASKS, K) },
      overlapping.paths,
      rounds,
      3,
    );
    const clientNodeOnOverlap = await outcomeOf(entryOf(TASKS, CLIENT_NODE), overlapping.paths);
    const kOnOverlap = (await entryOf(TASKS, K)(overlapping.paths)) as Awaited<
      ReturnType<typeof loadKubeconfig>
    >;
    const scaling = process.argv.includes('--scaling') ? await scalingTable() : undefined;

    const report = renderReport({
      rounds,
      distinct,
      overlapping,
      timings,
      memory,
      overlapTimings,
      clientNodeOnOverlap,
      overlapCounts: [
        kOnOverlap.config.clusters.size,
        kOnOverlap.config.users.size,
        kOnOverlap.config.contexts.size,
      ],
      scaling,
      seconds: (Date.now() - started) / 1000,
      startLoad,
    });
    mkdirSync(join(benchDirectory, 'results'), { recursive: true });
    writeFileSync(join(benchDirectory, 'results', 'kubeconfig-load.md'), report);
    console.log(report);
  } finally {
    distinct.remove();
    overlapping.remove();
  }
}

/**
 * timeTasks runs `rounds` tinybench runs of `iterations` each, rotating the task order every
 * round, and merges each task's samples. Wall time comes from tinybench, CPU time (user +
 * system of this process) from process.cpuUsage around each call.
 */
async function timeTasks(
  tasks: Record<string, Task>,
  paths: readonly string[],
  rounds: number,
  iterations: number,
): Promise<Record<string, Timing>> {
  const names = Object.keys(tasks);
  const timings: Record<string, Timing> = Object.fromEntries(
    names.map((name) => [name, { samples: [], cpuSamples: [] }]),
  );
  let sink: unknown;
  for (let round = 0; round < rounds; round++) {
    const bench = new Bench({
      time: 0,
      iterations,
      warmup: round === 0,
      warmupIterations: 2,
      warmupTime: 0,
      retainSamples: true,
    });
    const shift = round % names.length;
    const order = [...names.slice(shift), ...names.slice(0, shift)];
    for (const name of order) {
      bench.add(name, async () => {
        const before = process.cpuUsage();
        sink = await entryOf(tasks, name)(paths);
        const used = process.cpuUsage(before);
        if (!warmingUp) entryOf(timings, name).cpuSamples.push((used.user + used.system) / 1000);
      });
    }
    let warmingUp = round === 0;
    bench.addEventListener('start', () => (warmingUp = false));
    await bench.run();
    for (const task of bench.tasks) {
      const result = task.result;
      if (result.state === 'errored') throw result.error;
      if (result.state !== 'completed') throw new Error(`${task.name}: ${result.state}`);
      entryOf(timings, task.name).samples.push(...(result.latency.samples ?? []));
    }
  }
  void sink;
  return timings;
}

/** measureMemory loads the files once in a fresh child process and reports its memory growth. */
function measureMemory(name: string, paths: readonly string[]): Memory {
  const child = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--conditions=@k/source',
      fileURLToPath(import.meta.url),
      '--memory-child',
      name,
      ...paths,
    ],
    { cwd: repositoryRoot, encoding: 'utf8', maxBuffer: 1 << 20 },
  );
  if (child.status !== 0) throw new Error(`memory child for ${name} failed: ${child.stderr}`);
  return JSON.parse(child.stdout) as Memory;
}

async function memoryChild(name: string, paths: string[]) {
  setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc') as () => void;
  const task = entryOf(TASKS, name);
  collect();
  const before = process.memoryUsage();
  const result = await task(paths);
  const atEnd = process.memoryUsage();
  collect();
  const kept = process.memoryUsage();
  const peakRss = process.resourceUsage().maxRSS * 1024;
  const memory: Memory = {
    heapAtEndMb: (atEnd.heapUsed - before.heapUsed) / 1e6,
    heapKeptMb: (kept.heapUsed - before.heapUsed) / 1e6,
    rssPeakDeltaMb: (peakRss - before.rss) / 1e6,
  };
  void result;
  console.log(JSON.stringify(memory));
}

async function outcomeOf(task: Task, paths: readonly string[]): Promise<string> {
  try {
    await task(paths);
    return 'loads';
  } catch (error) {
    return `throws \`${error instanceof Error ? error.message : String(error)}\``;
  }
}

/** scalingTable times k and client-node for several entry counts per file (p50 wall time). */
async function scalingTable(): Promise<string[][]> {
  const rows: string[][] = [];
  for (const entries of [100, 500, 1000, 2000]) {
    const set = writeKubeconfigSet({ files: 3, entries, seed: entries });
    try {
      const tasks = { [K]: entryOf(TASKS, K), [CLIENT_NODE]: entryOf(TASKS, CLIENT_NODE) };
      const timings = await timeTasks(tasks, set.paths, 4, 2);
      const k = percentile(entryOf(timings, K).samples, 0.5);
      const clientNode = percentile(entryOf(timings, CLIENT_NODE).samples, 0.5);
      rows.push([
        String(entries),
        megabytes(set.totalBytes),
        k.toFixed(1),
        clientNode.toFixed(1),
        (k / clientNode).toFixed(2),
      ]);
    } finally {
      set.remove();
    }
  }
  return rows;
}

interface ReportInput {
  rounds: number;
  distinct: KubeconfigSet;
  overlapping: KubeconfigSet;
  timings: Record<string, Timing>;
  memory: Record<string, Memory>;
  overlapTimings: Record<string, Timing>;
  clientNodeOnOverlap: string;
  overlapCounts: number[];
  scaling: string[][] | undefined;
  seconds: number;
  startLoad: number;
}

function renderReport(input: ReportInput): string {
  const { timings, memory } = input;
  const p50 = (name: string) => percentile(entryOf(timings, name).samples, 0.5);
  const mean = (name: string) => average(entryOf(timings, name).samples);
  const cpu = (name: string) => percentile(entryOf(timings, name).cpuSamples, 0.5);
  const header = [
    'task',
    'mean ms',
    'p50 ms',
    'p99 ms',
    'ops/s',
    'CPU p50 ms',
    'heap +MB at end',
    'heap +MB kept',
    'peak RSS +MB',
    'p50 / client-node',
  ];
  const rows = Object.keys(timings).map((name) => {
    const samples = entryOf(timings, name).samples;
    const used = entryOf(memory, name);
    return [
      name,
      mean(name).toFixed(1),
      p50(name).toFixed(1),
      percentile(samples, 0.99).toFixed(1),
      (1000 / mean(name)).toFixed(2),
      cpu(name).toFixed(1),
      used.heapAtEndMb.toFixed(0),
      used.heapKeptMb.toFixed(0),
      used.rssPeakDeltaMb.toFixed(0),
      (p50(name) / p50(CLIENT_NODE)).toFixed(2),
    ];
  });
  const overlap = entryOf(input.overlapTimings, K).samples;
  const lines = [
    '# Kubeconfig load benchmark',
    '',
    `Generated by \`npx tsx --conditions=@k/source bench/kubeconfig-load.bench.ts${
      input.scaling ? ' --scaling' : ''
    }\` on ${new Date().toISOString().slice(0, 10)}; ${input.seconds.toFixed(0)} s in all.`,
    '',
    `Machine: ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${cpus().length} cores, ${megabytes(
      totalmem(),
    )} MB, ${arch()}; Node ${process.versions.node}; load average ${input.startLoad.toFixed(
      1,
    )} at the start.`,
    '',
    `Input: 3 files, 1,000 clusters (~1.5 KB of CA data each), 1,000 users (60% tokens, 20% exec,`,
    `10% client certificates, 10% OIDC) and 1,000 contexts each, distinct names;`,
    `${megabytes(input.distinct.totalBytes)} MB in all. ${input.rounds} rounds × 3 iterations`,
    `per task, task order rotated every round; memory from one load in a fresh child process.`,
    '',
    `**k / client-node: ${(p50(K) / p50(CLIENT_NODE)).toFixed(2)} (p50 wall), ${(
      mean(K) / mean(CLIENT_NODE)
    ).toFixed(2)} (mean wall), ${(cpu(K) / cpu(CLIENT_NODE)).toFixed(2)} (p50 CPU).**`,
    '',
    table(header, rows),
    '',
    '## Overlapping names',
    '',
    `3 files of 1,000 entries of each kind, each sharing 200 names with the previous one (the`,
    `kubectl rule: the first file to define a name wins); ${megabytes(
      input.overlapping.totalBytes,
    )} MB.`,
    '',
    `- @k/config: p50 ${percentile(overlap, 0.5).toFixed(1)} ms, mean ${average(overlap).toFixed(
      1,
    )} ms; merged ${input.overlapCounts.join(' / ')} clusters / users / contexts.`,
    `- @kubernetes/client-node: ${input.clientNodeOnOverlap} (its mergeConfig refuses a name`,
    `  that an earlier file defined, where kubectl keeps the first).`,
  ];
  if (input.scaling) {
    lines.push(
      '',
      '## Scaling (3 files, distinct names, p50 wall time, 4 rounds × 2 iterations)',
      '',
      table(
        ['entries per file', 'MB', '@k/config ms', 'client-node ms', 'k / client-node'],
        input.scaling,
      ),
    );
  }
  return `${lines.join('\n')}\n`;
}

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** percentile interpolates linearly between the closest ranks, as tinybench does. */
function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const rank = (sorted.length - 1) * fraction;
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  const [lowValue = Number.NaN, highValue = Number.NaN] = [sorted[low], sorted[high]];
  return lowValue + (highValue - lowValue) * (rank - low);
}

function average(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

function megabytes(bytes: number): string {
  return (bytes / 1e6).toFixed(1);
}

/** entryOf reads a record entry that must exist. */
function entryOf<T>(record: Record<string, T>, name: string): T {
  const value = record[name];
  if (value === undefined) throw new Error(`no entry ${name}`);
  return value;
}

function option(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
}
