/**
 * Runs existing benchmarks against two or more checkouts of k ("trees") and compares their
 * figures: each tree is a worktree with its own node_modules (so its own undici) and its own
 * built dist, and each benchmark runs in the tree with that tree's tsx, resolving that tree's
 * packages, exactly as `npx tsx bench/<name>.ts` does there. Written for the move from undici 7
 * to undici 8 (bench/results/undici-8.md, ADR 0023): k on undici 7 is a build of main, k on
 * undici 8 a build of the branch, and each benchmark's raw-undici rows use the tree's undici.
 *
 *   BENCH_TREES=undici7=../k-undici7,undici8=. npx tsx bench/compare-trees.ts
 *
 * Every tree needs `npm ci` and `npx nx run-many -t build` (whole-process, informer-pods and the
 * LIST rows of rest load the built dist) and the same bench/ harness (copy this folder's *.ts
 * into an older tree). A sample is one fresh benchmark process; samples are interleaved (every
 * round runs each benchmark once per tree, the tree order rotating every round), the load
 * average is recorded before each, and the figures are the medians of the samples. Each
 * benchmark prints its markdown tables; every numeric cell is parsed, keyed by its section, its
 * row's text cells and its column. Each benchmark's own report file is put back as it was after
 * every sample, so a comparison leaves the trees' results alone.
 *
 * Environment: BENCH_TREES (`name=path,…`, the first is the baseline of the ratios),
 * BENCH_COMPARE (benchmarks, default `whole-process,rest,informer-pods`), BENCH_SAMPLES (per
 * tree and benchmark, default 3), BENCH_REPORT (the report file, default
 * bench/results/trees.md). Each benchmark gets the small defaults below unless the environment
 * sets the same variable, and otherwise the environment without what npm, tsx, vitest or Nx set
 * (@k/test-utils' runCommand). rest's clients include @kubernetes/client-node, which does not use
 * undici: its rows are the noise between the trees.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand } from '@k/test-utils';
import { format, loadAverage, median } from './figures.js';

interface Benchmark {
  /** file is the benchmark's path in a tree. */
  file: string;
  /** source runs it with the `@k/source` condition (workspace packages from src/). */
  source: boolean;
  /** args follow the file on the command line. */
  args?: readonly string[];
  /** report is the file it writes, put back after every sample. */
  report: string;
  /** defaults are environment variables set unless the caller set them. */
  defaults: Record<string, string>;
}

const BENCHMARKS: Record<string, Benchmark> = {
  rest: {
    file: 'bench/rest.bench.ts',
    source: true,
    report: 'bench/results/rest.md',
    defaults: {
      // client-node does not use undici: the control that tells the trees' noise from undici's part.
      BENCH_CLIENTS: 'raw-undici,k-rest,k-rest-transport,client-node',
      BENCH_REQUESTS: '500',
      BENCH_BATCHES: '6',
      BENCH_WATCH_BATCHES: '3',
      BENCH_WATCH_EVENTS: '5000',
      BENCH_LIST_REPEATS: '3',
      BENCH_LIST_WARM: '3',
    },
  },
  'whole-process': {
    file: 'bench/whole-process.bench.ts',
    source: false,
    report: 'bench/results/whole-process.md',
    defaults: { BENCH_ROUNDS: '5' },
  },
  'clientset-import': {
    file: 'bench/clientset-import.bench.ts',
    source: true,
    args: ['--no-build'],
    report: 'bench/results/clientset.md',
    defaults: { BENCH_IMPORT_ROUNDS: '9', BENCH_LIST_REPEATS: '3', BENCH_LIST_WARM: '3' },
  },
  'informer-pods': {
    file: 'bench/informer-pods.bench.ts',
    source: false,
    report: 'bench/results/informer-pods.md',
    defaults: {
      BENCH_PODS: '3000',
      BENCH_UPDATES: '1000',
      BENCH_ROUNDS: '1',
      BENCH_VARIANTS:
        '^(@k/runtime Informer \\(default|@k/runtime Informer, JSON|raw undici \\+ JSON.parse into a Map|floor)',
    },
  },
};

interface Tree {
  name: string;
  path: string;
}

/** Figure is one numeric cell of a benchmark's output. */
interface Figure {
  bench: string;
  section: string;
  row: string;
  column: string;
  unit: string;
  value: number;
}

// A figure: a number alone or followed by a unit and more (`6,947 req/s`, `135 MB (64 MB …)`),
// not a name that starts with one (`32-concurrent GET`).
const NUMBER = /^(-?[\d,]+(?:\.\d+)?)(?:\s+([^\s(]+))?(?:\s|$)/;

/**
 * parseFigures reads every markdown table of a benchmark's output: text cells name the row,
 * numeric cells are figures; ratio columns ("vs …") are left out (they compare within a tree).
 */
export function parseFigures(bench: string, output: string): Figure[] {
  const figures: Figure[] = [];
  const lines = output.split('\n');
  let section = '';
  let header: string[] | undefined;
  const cells = (line: string): string[] =>
    line
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((cell) => cell.trim());
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]?.trim() ?? '';
    if (line.startsWith('## ')) section = line.slice(3);
    if (!line.startsWith('|')) {
      header = undefined;
      continue;
    }
    if (!header) {
      if (/^\|[\s:-]+\|/.test(lines[index + 1]?.trim() ?? '')) header = cells(line);
      continue;
    }
    if (/^\|[\s:|-]+$/.test(line)) continue;
    const row = cells(line);
    const ratio = (column: number): boolean => /\bvs\b/.test(header?.[column] ?? '');
    const names = row.filter(
      (cell, column) => !NUMBER.test(cell) && !ratio(column) && header?.[column] !== undefined,
    );
    row.forEach((cell, column) => {
      const name = header?.[column] ?? '';
      const match = NUMBER.exec(cell);
      if (!match?.[1] || ratio(column)) return;
      figures.push({
        bench,
        section,
        row: names.filter(Boolean).join(' · '),
        column: name,
        unit: match[2] ?? '',
        value: Number(match[1].replaceAll(',', '')),
      });
    });
  }
  return figures;
}

/** SAMPLE_TIMEOUT_MS bounds one benchmark process (informer-pods' default run takes minutes). */
const SAMPLE_TIMEOUT_MS = 60 * 60_000;

/**
 * runSample runs one benchmark in a tree and returns all it printed on stdout; it throws if the
 * benchmark exits with anything but 0. The benchmark's report file is put back as it was.
 */
export async function runSample(tree: Tree, bench: Benchmark): Promise<string> {
  const reportPath = join(tree.path, bench.report);
  const report = existsSync(reportPath) ? readFileSync(reportPath) : undefined;
  const defaults = Object.fromEntries(
    Object.entries(bench.defaults).filter(([name]) => process.env[name] === undefined),
  );
  // runCommand resolves on 'close', once stdout has ended: on 'exit' its last chunk can be missing.
  const { status, stdout, stderr } = await runCommand(
    process.execPath,
    [
      join(tree.path, 'node_modules/tsx/dist/cli.mjs'),
      ...(bench.source ? ['--conditions=@k/source'] : []),
      bench.file,
      ...(bench.args ?? []),
    ],
    tree.path,
    { env: defaults, timeoutMs: SAMPLE_TIMEOUT_MS },
  );
  if (report) writeFileSync(reportPath, report);
  if (status !== 0) {
    throw new Error(`${bench.file} in ${tree.path} exited with ${status}: ${stderr.slice(-2000)}`);
  }
  return stdout;
}

function undiciVersion(tree: Tree): string {
  const manifest = join(tree.path, 'node_modules/undici/package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/**
 * writeReport writes the medians of the samples so far (called after every sample, so a run cut
 * short still leaves its figures) and returns the report.
 */
function writeReport(
  trees: readonly Tree[],
  figures: readonly Figure[][][],
  loads: readonly string[],
  samples: number,
  startLoad: string,
): string {
  const key = (figure: Figure): string =>
    [figure.bench, figure.section, figure.row, figure.column].join('\u0000');
  const values = trees.map(() => new Map<string, number[]>());
  const order = new Map<string, Figure>();
  figures.forEach((runs, index) => {
    for (const run of runs) {
      for (const figure of run) {
        if (!order.has(key(figure))) order.set(key(figure), figure);
        const list = values[index]?.get(key(figure)) ?? [];
        list.push(figure.value);
        values[index]?.set(key(figure), list);
      }
    }
  });
  const [base, ...others] = trees;
  const lines = [
    `# Benchmark: ${trees.map((tree) => tree.name).join(' vs ')}`,
    '',
    'Generated by `BENCH_TREES=… npx tsx bench/compare-trees.ts` (see the file header).',
    '',
    `Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}, load average ${startLoad} at the start, ${loadAverage()} at the end. Trees: ${trees.map((tree) => `${tree.name} (undici ${undiciVersion(tree)})`).join(', ')}. up to ${samples} fresh processes per benchmark and tree, interleaved (the tree order rotates every round); medians of the samples. "${others.map((tree) => tree.name).join(', ')} ÷ ${base?.name}" is the ratio of the medians: above 1 is more of the figure (better for rates, worse for times, CPU and memory).`,
    '',
  ];
  let currentBench = '';
  for (const [id, figure] of order) {
    if (figure.bench !== currentBench) {
      currentBench = figure.bench;
      lines.push(
        '',
        `## ${figure.bench}`,
        '',
        `| section | row | figure | ${trees.map((tree) => tree.name).join(' | ')} | ${others.map((tree) => `${tree.name} ÷ ${base?.name}`).join(' | ')} |`,
        `| --- | --- | --- | ${trees.map(() => '---:').join(' | ')} | ${others.map(() => '---:').join(' | ')} |`,
      );
    }
    const medians = values.map((map) => median(map.get(id) ?? []));
    const baseline = medians[0] ?? Number.NaN;
    const digits = (value: number): number => (Math.abs(value) >= 100 ? 0 : 2);
    lines.push(
      `| ${figure.section || '—'} | ${figure.row} | ${figure.column}${figure.unit ? ` (${figure.unit})` : ''} | ${medians.map((value) => format(value, digits(value))).join(' | ')} | ${medians
        .slice(1)
        .map((value) => `${format(value / baseline, 2)}x`)
        .join(' | ')} |`,
    );
  }
  lines.push('', '## Load average before each sample', '', ...loads.map((load) => `- ${load}`), '');
  const report = lines.join('\n');
  writeFileSync(
    process.env.BENCH_REPORT ?? fileURLToPath(new URL('./results/trees.md', import.meta.url)),
    report,
  );
  return report;
}

async function main(): Promise<void> {
  const trees: Tree[] = (process.env.BENCH_TREES ?? '').split(',').map((entry) => {
    const [name, path] = entry.split('=');
    if (!name || !path) throw new Error('BENCH_TREES must be name=path,name=path');
    return { name, path: isAbsolute(path) ? path : resolve(path) };
  });
  if (trees.length < 2) throw new Error('BENCH_TREES names fewer than two trees');
  const benches = (process.env.BENCH_COMPARE ?? 'whole-process,rest,informer-pods').split(',');
  for (const name of benches) if (!BENCHMARKS[name]) throw new Error(`unknown benchmark ${name}`);
  const samples = Number(process.env.BENCH_SAMPLES ?? 3);
  const startLoad = loadAverage();
  const figures = trees.map((): Figure[][] => []);
  const loads: string[] = [];
  for (let round = 0; round < samples; round += 1) {
    for (const name of benches) {
      for (let offset = 0; offset < trees.length; offset += 1) {
        const index = (round + offset) % trees.length;
        const tree = trees[index];
        const load = loadAverage();
        loads.push(`${name} ${tree.name} round ${round + 1}: ${load}`);
        process.stderr.write(`${name} on ${tree.name} (round ${round + 1}, load ${load})\n`);
        const output = await runSample(tree, BENCHMARKS[name]);
        figures[index]?.push(parseFigures(name, output));
        writeReport(trees, figures, loads, samples, startLoad);
      }
    }
  }
  process.stdout.write(writeReport(trees, figures, loads, samples, startLoad));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
