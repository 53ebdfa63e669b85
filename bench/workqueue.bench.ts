/**
 * Workqueue throughput: add + get + done per second of @k/runtime's `Workqueue` beside client-go
 * v0.37.2's workqueue (bench/go/workqueue, built here with the installed Go), in one run.
 * @kubernetes/client-node has no workqueue, so there is no JavaScript peer to run.
 *
 * Workloads, each on one set of 10,000 distinct keys (`namespace-N/object-M`), a sample being
 * 20 passes over the keys with a new queue each:
 * - plain: add every key, then get and done each, one worker;
 * - rate-limited: `addRateLimited` every key through the per-item exponential limiter
 *   (5 ms for a first failure, the default controller limiter's per-item part; its overall
 *   10 qps bucket would make the run a measure of the bucket), then get, forget and done each.
 *   Each pass waits those 5 ms once, in both libraries: compare CPU per operation.
 * k is also measured with its metrics recorded by the prom-client sink (`name` and `metrics`
 * set, as a Manager's controllers do); client-go's figures are without a metrics provider, its
 * default.
 *
 * Figures: median operations per second (wall) and median CPU µs per operation (this process's
 * user + system time, or the Go program's own rusage) over BENCH_SAMPLES samples (default 9)
 * after warm-up; the k samples rotate with the Go runs so load on the machine falls on both.
 *
 *   npx tsx --conditions=@k/source bench/workqueue.bench.ts
 *
 * Writes bench/results/workqueue.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MetricsSink } from '@k/runtime/metrics';
import { ItemExponentialFailureRateLimiter, Workqueue } from '@k/runtime/workqueue';
import { PrometheusMetrics } from '@k/runtime/prometheus';
import { format, loadAverage, median } from './figures.js';

const here = (name: string): string => fileURLToPath(new URL(name, import.meta.url));

const KEYS = 10_000;
const PASSES = 20;
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 9);
const WARM_UP_SAMPLES = 3;
const TARGET = 200_000;
const keys = Array.from({ length: KEYS }, (_, index) => `namespace-${index % 100}/object-${index}`);

interface Sample {
  operationsPerSecond: number;
  cpuMicrosPerOperation: number;
}

type Pass = (metrics: MetricsSink | undefined) => Promise<void>;

async function plainPass(metrics: MetricsSink | undefined): Promise<void> {
  const queue = new Workqueue<string>(metrics ? { name: 'bench', metrics } : {});
  for (const key of keys) queue.add(key);
  for (let index = 0; index < KEYS; index += 1) queue.done((await queue.get())!);
  queue.shutDown();
}

async function rateLimitedPass(metrics: MetricsSink | undefined): Promise<void> {
  const queue = new Workqueue<string>({
    rateLimiter: new ItemExponentialFailureRateLimiter<string>(5, 1000 * 1000),
    ...(metrics ? { name: 'bench', metrics } : {}),
  });
  for (const key of keys) queue.addRateLimited(key);
  for (let index = 0; index < KEYS; index += 1) {
    const key = (await queue.get())!;
    queue.forget(key);
    queue.done(key);
  }
  queue.shutDown();
}

async function sample(pass: Pass, metrics: MetricsSink | undefined): Promise<Sample> {
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  for (let index = 0; index < PASSES; index += 1) await pass(metrics);
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const operations = KEYS * PASSES;
  return {
    operationsPerSecond: operations / seconds,
    cpuMicrosPerOperation: (cpu.user + cpu.system) / operations,
  };
}

interface GoFigures {
  workload: 'plain' | 'rateLimited';
  seconds: number;
  cpuSeconds: number;
  operationsPerSecond: number;
  keys: number;
  passes: number;
}

function buildGo(directory: string): string {
  const binary = join(directory, 'workqueue');
  execFileSync('go', ['build', '-o', binary, '.'], {
    cwd: here('./go/workqueue'),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return binary;
}

function runGo(binary: string): Record<GoFigures['workload'], Sample> {
  const output = execFileSync(
    binary,
    ['-keys', String(KEYS), '-passes', String(PASSES), '-samples', '1'],
    { encoding: 'utf8' },
  );
  const figures = output
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as GoFigures);
  const of = (workload: GoFigures['workload']): Sample => {
    const found = figures.find((each) => each.workload === workload)!;
    return {
      operationsPerSecond: found.operationsPerSecond,
      cpuMicrosPerOperation: (found.cpuSeconds * 1e6) / (found.keys * found.passes),
    };
  };
  return { plain: of('plain'), rateLimited: of('rateLimited') };
}

interface Row {
  label: string;
  workload: 'plain' | 'rateLimited';
  samples: Sample[];
}

interface KRow extends Row {
  pass: Pass;
  metrics: MetricsSink | undefined;
}

async function main(): Promise<void> {
  const startLoad = loadAverage();
  const goVersion = execFileSync('go', ['version'], { encoding: 'utf8' }).trim();
  const buildDirectory = mkdtempSync(join(tmpdir(), 'k-bench-workqueue-'));
  try {
    const binary = buildGo(buildDirectory);
    const metrics = new PrometheusMetrics({ processMetrics: false });
    const definitions: Omit<KRow, 'samples'>[] = [
      { label: '@k/runtime Workqueue', workload: 'plain', pass: plainPass, metrics: undefined },
      {
        label: '@k/runtime Workqueue',
        workload: 'rateLimited',
        pass: rateLimitedPass,
        metrics: undefined,
      },
      {
        label: '@k/runtime Workqueue, prom-client metrics',
        workload: 'plain',
        pass: plainPass,
        metrics,
      },
      {
        label: '@k/runtime Workqueue, prom-client metrics',
        workload: 'rateLimited',
        pass: rateLimitedPass,
        metrics,
      },
    ];
    const kVariants: KRow[] = definitions.map((variant) => ({ ...variant, samples: [] }));
    const goRows: Row[] = [
      { label: 'client-go v0.37.2 workqueue', workload: 'plain', samples: [] },
      { label: 'client-go v0.37.2 workqueue', workload: 'rateLimited', samples: [] },
    ];

    for (let round = -WARM_UP_SAMPLES; round < SAMPLES; round += 1) {
      // Rotate the k variants each round; the Go program runs between them.
      const order = kVariants.map((_, index) => kVariants[(index + round + 8) % kVariants.length]);
      for (const [position, variant] of order.entries()) {
        const measured = await sample(variant.pass, variant.metrics);
        if (round >= 0) variant.samples.push(measured);
        if (position === 1 && round >= 0) {
          const go = runGo(binary);
          goRows[0].samples.push(go.plain);
          goRows[1].samples.push(go.rateLimited);
        }
      }
    }

    const rows = [...kVariants, ...goRows];
    const goMedian = (workload: Row['workload']): number =>
      median(goRows.find((row) => row.workload === workload)!.samples.map(opsOf));
    const goCpu = (workload: Row['workload']): number =>
      median(goRows.find((row) => row.workload === workload)!.samples.map(cpuOf));
    const table = (workload: Row['workload'], title: string): string[] => [
      `### ${title}`,
      '',
      '| queue | add+get+done per s | vs target 200,000 | vs client-go | CPU µs per op | CPU vs client-go |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
      ...rows
        .filter((row) => row.workload === workload)
        .map((row) => {
          const operations = median(row.samples.map(opsOf));
          const cpu = median(row.samples.map(cpuOf));
          return `| ${row.label} | ${format(operations, 0)} | ${format(operations / TARGET, 2)}× | ${format(operations / goMedian(workload), 2)} | ${format(cpu, 2)} | ${format(cpu / goCpu(workload), 2)} |`;
        }),
      '',
    ];

    const report = [
      '# Benchmark: workqueue throughput (add + get + done)',
      '',
      'Generated by `npx tsx --conditions=@k/source bench/workqueue.bench.ts`.',
      '',
      `Node ${process.version}, ${goVersion}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}, load average ${startLoad} at the start. ` +
        `${format(KEYS, 0)} distinct keys, ${PASSES} passes per sample (a new queue each), medians of ${SAMPLES} samples after ${WARM_UP_SAMPLES} warm-up samples, k and Go interleaved. ` +
        '@kubernetes/client-node has no workqueue (nor a controller loop), so no JavaScript peer is measured.',
      '',
      ...table('plain', 'add every key, then get and done each'),
      ...table(
        'rateLimited',
        'addRateLimited every key (5 ms per-item backoff), then get, forget and done each',
      ),
      'Ratios above 1 are faster than client-go for throughput and costlier for CPU. Each rate-limited pass',
      'waits its 5 ms backoff once, in both libraries, so its wall figure is partly waiting; CPU per',
      'operation is the comparable figure there, and on a loaded machine everywhere.',
      "client-go's figures are without a metrics provider (its default); the prom-client rows show",
      "what a Manager's named queues cost with `@k/runtime/prometheus` (its counters and histograms",
      "find their series by the queue's frozen labels instead of prom-client's per-call label hashing).",
      '',
    ].join('\n');
    writeFileSync(here('./results/workqueue.md'), report);
    console.log(report);
  } finally {
    rmSync(buildDirectory, { recursive: true, force: true });
  }
}

const opsOf = (sampled: Sample): number => sampled.operationsPerSecond;
const cpuOf = (sampled: Sample): number => sampled.cpuMicrosPerOperation;

await main();
