/**
 * What @k/clientset costs an application, in one run:
 *
 * 1. Import cost: `import { createClientset } from '@k/clientset'` (the built dist, no source
 *    condition) against `@kubernetes/client-node` 1.4.0 and undici alone, each in a fresh node
 *    process, ESM `import` and CJS `require`, plus the `@k/clientset/core/v1` subpath. Every
 *    round runs each target once, in rotating order, so load from other processes falls on all
 *    alike; figures are medians over the rounds. "ready" rows time import plus what it takes to
 *    hold a client that could send (`createClientset(config)`, `new Agent()`,
 *    `makeApiClient(CoreV1Api)`): the generated API groups load on first use. "over node"
 *    subtracts the median of a bare node process; the in-process column times the import
 *    statement alone (performance.now around it).
 * 2. LIST 5,000 pods through the typed client (`clientset.coreV1.pods('default').list()` on
 *    @k/rest and @k/transport) against raw `undici.request` + `JSON.parse`, from a fake API server
 *    in its own process (bench/clientset-list-server.ts); each measurement is a child process of
 *    its own (bench/clientset-list-child.ts as a plain node program on the built dist), so heaps
 *    never mix: time to decoded objects in hand (cold and warm) and peak RSS of a list after the
 *    first (Linux VmHWM, reset just before it).
 *
 *   npx tsx --conditions=@k/source bench/clientset-import.bench.ts [--no-build]
 *
 * It builds @k/config, @k/transport, @k/rest and @k/clientset first (nx, cached) unless
 * `--no-build`. Environment: BENCH_IMPORT_ROUNDS (default 15), BENCH_LIST_REPEATS (7),
 * BENCH_LIST_PODS (5000), BENCH_LIST_WARM (5). Writes bench/results/clientset.md.
 */
import { fork, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { plainNodeProgram } from './plain-node-program.js';

const benchDirectory = dirname(fileURLToPath(import.meta.url));
const repositoryRoot = dirname(benchDirectory);

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const format = (value: number, digits = 1): string => value.toFixed(digits);
const megabytes = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

// ---------------------------------------------------------------------------------------------
// Import cost.

interface ImportTarget {
  name: string;
  /** group pairs a target with its undici baseline of the same module system. */
  system: 'none' | 'esm' | 'cjs' | 'ready';
  args: string[];
}

function esm(name: string, specifier: string, exportName: string): ImportTarget {
  const code =
    `const started = performance.now(); const module = await import(${JSON.stringify(specifier)});` +
    `const importMs = performance.now() - started;` +
    `if (!(${JSON.stringify(exportName)} in module)) throw new Error('missing export');` +
    `process.stdout.write(JSON.stringify({ importMs }));`;
  return { name, system: 'esm', args: ['--input-type=module', '-e', code] };
}

function cjs(name: string, specifier: string, exportName: string): ImportTarget {
  const code =
    `const started = performance.now(); const module = require(${JSON.stringify(specifier)});` +
    `const importMs = performance.now() - started;` +
    `if (!(${JSON.stringify(exportName)} in module)) throw new Error('missing export');` +
    `process.stdout.write(JSON.stringify({ importMs }));`;
  return { name, system: 'cjs', args: ['-e', code] };
}

/** ready times an ESM import plus what it takes until a client could send its first request. */
function ready(name: string, code: string): ImportTarget {
  const timed =
    `const started = performance.now(); ${code}; const importMs = performance.now() - started;` +
    `process.stdout.write(JSON.stringify({ importMs })); process.exit(0);`;
  return { name, system: 'ready', args: ['--input-type=module', '-e', timed] };
}

const CONFIG = JSON.stringify({
  server: 'http://127.0.0.1:9',
  contextName: 'bench',
  clusterName: 'bench',
  userName: 'bench',
  namespace: 'default',
  namespaceExplicit: false,
  tls: { insecure: false },
  auth: { kind: 'none' },
  disableCompression: true,
  source: 'kubeconfig',
});

const TARGETS: ImportTarget[] = [
  {
    name: 'node (nothing imported)',
    system: 'none',
    args: ['-e', 'process.stdout.write(JSON.stringify({ importMs: 0 }))'],
  },
  esm('undici alone', 'undici', 'request'),
  esm('@k/clientset { createClientset }', '@k/clientset', 'createClientset'),
  esm('@k/clientset/core/v1 { createCoreV1Client }', '@k/clientset/core/v1', 'createCoreV1Client'),
  esm('@kubernetes/client-node 1.4.0', '@kubernetes/client-node', 'KubeConfig'),
  cjs('undici alone', 'undici', 'request'),
  cjs('@k/clientset { createClientset }', '@k/clientset', 'createClientset'),
  cjs('@kubernetes/client-node 1.4.0', '@kubernetes/client-node', 'KubeConfig'),
  ready('undici alone', "const { Agent } = await import('undici'); new Agent()"),
  ready(
    '@k/clientset { createClientset }',
    `const { createClientset } = await import('@k/clientset'); const clientset = createClientset(${CONFIG}); clientset.coreV1.pods('default')`,
  ),
  ready(
    '@k/clientset by DI: registerClientset + resolve(CLIENTSET)',
    `await import('reflect-metadata'); const [{ container }, { registerClientset, CLIENTSET }] = await Promise.all([import('tsyringe'), import('@k/clientset/di')]); const clientset = registerClientset(container.createChildContainer(), { config: ${CONFIG} }).resolve(CLIENTSET); clientset.coreV1.pods('default')`,
  ),
  ready(
    '@kubernetes/client-node 1.4.0',
    "const k8s = await import('@kubernetes/client-node'); const config = new k8s.KubeConfig(); config.loadFromOptions({ clusters: [{ name: 'c', server: 'http://127.0.0.1:9' }], users: [{ name: 'u' }], contexts: [{ name: 'x', cluster: 'c', user: 'u' }], currentContext: 'x' }); config.makeApiClient(k8s.CoreV1Api)",
  ),
];

interface ImportResult {
  wallMs: number[];
  importMs: number[];
}

function runTarget(target: ImportTarget): { wallMs: number; importMs: number } {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const started = performance.now();
  const child = spawnSync(process.execPath, target.args, {
    cwd: repositoryRoot,
    env,
    encoding: 'utf8',
  });
  const wallMs = performance.now() - started;
  if (child.status !== 0) {
    throw new Error(`${target.name} (${target.system}) failed: ${child.stderr}`);
  }
  return { wallMs, importMs: (JSON.parse(child.stdout) as { importMs: number }).importMs };
}

function measureImports(rounds: number): ImportResult[] {
  const results: ImportResult[] = TARGETS.map(() => ({ wallMs: [], importMs: [] }));
  // One unmeasured round warms the file system cache for every target.
  for (const target of TARGETS) runTarget(target);
  for (let round = 0; round < rounds; round++) {
    for (let offset = 0; offset < TARGETS.length; offset++) {
      const index = (round + offset) % TARGETS.length;
      const { wallMs, importMs } = runTarget(TARGETS[index]);
      results[index]?.wallMs.push(wallMs);
      results[index]?.importMs.push(importMs);
    }
  }
  return results;
}

function importTable(results: ImportResult[]): { table: string; verdict: string[] } {
  const bare = median(results[0]?.wallMs ?? []);
  const over = results.map((result) => median(result.wallMs) - bare);
  const inProcess = results.map((result) => median(result.importMs));
  const undiciIndex = (system: ImportTarget['system']) =>
    TARGETS.findIndex((target) => target.system === system && target.name === 'undici alone');
  const clientNodeIndex = (system: ImportTarget['system']) =>
    TARGETS.findIndex(
      (target) => target.system === system && target.name.startsWith('@kubernetes'),
    );
  const lines = [
    '| target | system | whole process ms | over node ms | in-process import ms | vs undici (over node) | vs undici (in-process) |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  TARGETS.forEach((target, index) => {
    const baseline = undiciIndex(target.system);
    const ratio = (values: number[]) =>
      target.system === 'none' || baseline === -1
        ? ''
        : `${format(values[index] / values[baseline], 2)}x`;
    lines.push(
      `| ${target.name} | ${target.system === 'none' ? '' : target.system} | ${format(median(results[index]?.wallMs ?? []))} | ${target.system === 'none' ? '' : format(over[index])} | ${target.system === 'none' ? '' : format(inProcess[index])} | ${ratio(over)} | ${ratio(inProcess)} |`,
    );
  });
  const verdict: string[] = [];
  for (const system of ['esm', 'cjs', 'ready'] as const) {
    const clientset = TARGETS.findIndex(
      (target) => target.system === system && target.name.startsWith('@k/clientset {'),
    );
    const undici = undiciIndex(system);
    const clientNode = clientNodeIndex(system);
    for (const [label, values] of [
      ['over node', over],
      ['in-process', inProcess],
    ] as const) {
      if (system === 'ready' && label === 'over node') continue;
      const toUndici = values[clientset] / values[undici];
      const belowClientNode = values[clientNode] / values[clientset];
      verdict.push(
        system === 'ready'
          ? `- ready to send (${label}): import + \`createClientset()\` is ${format(toUndici, 2)}x undici's import + \`new Agent()\` and ${format(belowClientNode, 1)}x less than client-node's import + \`makeApiClient(CoreV1Api)\` (no target; the whole cost an application pays before its first request).`
          : `- ${system.toUpperCase()} (${label}): @k/clientset is **${format(toUndici, 2)}x** undici alone (target ≤ 1.3x: ${toUndici <= 1.3 ? 'met' : 'missed'}) and **${format(belowClientNode, 1)}x** less than client-node (target ≥ 3x: ${belowClientNode >= 3 ? 'met' : 'missed'}).`,
      );
    }
  }
  return { table: lines.join('\n'), verdict };
}

// ---------------------------------------------------------------------------------------------
// LIST 5,000 pods.

interface ListResult {
  coldMs: number;
  warmMs: number;
  baselineRss: number;
  peakRss: number;
  error?: string;
}

async function listOnce(
  program: string,
  kind: 'raw' | 'typed',
  origin: string,
): Promise<ListResult> {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const child = fork(program, [kind, origin], {
    cwd: repositoryRoot,
    env,
    // A plain node program on k's built dist, as applications run (see plainNodeProgram).
    execArgv: ['--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [message] = (await once(child, 'message')) as [ListResult];
  await once(child, 'exit');
  if (message.error) throw new Error(`${kind} list failed: ${message.error}`);
  return message;
}

async function measureLists(
  repeats: number,
): Promise<{ table: string; verdict: string[]; bytes: number }> {
  const server = fork(join(benchDirectory, 'clientset-list-server.ts'), [], {
    cwd: repositoryRoot,
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [{ port, bytes }] = (await once(server, 'message')) as [{ port: number; bytes: number }];
  const origin = `http://127.0.0.1:${port}`;
  const results: Record<'raw' | 'typed', ListResult[]> = { raw: [], typed: [] };
  const program = await plainNodeProgram(join(benchDirectory, 'clientset-list-child.ts'));
  try {
    for (let repeat = 0; repeat < repeats; repeat++) {
      const order: ('raw' | 'typed')[] = repeat % 2 === 0 ? ['raw', 'typed'] : ['typed', 'raw'];
      for (const kind of order) results[kind].push(await listOnce(program, kind, origin));
    }
  } finally {
    server.send('exit');
  }
  const summary = (kind: 'raw' | 'typed') => ({
    coldMs: median(results[kind].map((result) => result.coldMs)),
    warmMs: median(results[kind].map((result) => result.warmMs)),
    baselineRss: median(results[kind].map((result) => result.baselineRss)),
    peakRss: median(results[kind].map((result) => result.peakRss)),
    growth: median(results[kind].map((result) => result.peakRss - result.baselineRss)),
  });
  const raw = summary('raw');
  const typed = summary('typed');
  const row = (name: string, value: ReturnType<typeof summary>, ratio: boolean) =>
    `| ${name} | ${format(value.coldMs)} | ${format(value.warmMs)} | ${megabytes(value.baselineRss)} | ${megabytes(value.peakRss)} | ${megabytes(value.growth)} | ${ratio ? `${format(value.warmMs / raw.warmMs, 2)}x` : ''} | ${ratio ? `${format(value.peakRss / raw.peakRss, 2)}x` : ''} |`;
  const table = [
    '| client | cold ms | warm ms | RSS before MB | peak RSS MB | list growth MB | warm vs raw | peak RSS vs raw |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    row('raw undici + JSON.parse', raw, false),
    row("typed: clientset.coreV1.pods('default').list()", typed, true),
  ].join('\n');
  const warmRatio = typed.warmMs / raw.warmMs;
  const coldRatio = typed.coldMs / raw.coldMs;
  const rssRatio = typed.peakRss / raw.peakRss;
  const growthRatio = typed.growth / raw.growth;
  const verdict = [
    `- time: typed/raw is **${format(warmRatio, 2)}x** warm and ${format(coldRatio, 2)}x cold (target ≤ 1.10x: ${warmRatio <= 1.1 ? 'met' : 'missed'}).`,
    `- memory: typed/raw peak RSS is **${format(rssRatio, 2)}x**, list growth ${format(growthRatio, 2)}x (target ≤ 1.10x: ${rssRatio <= 1.1 ? 'met' : 'missed'}).`,
  ];
  return { table, verdict, bytes };
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const rounds = Number(process.env.BENCH_IMPORT_ROUNDS ?? 15);
  const repeats = Number(process.env.BENCH_LIST_REPEATS ?? 7);
  if (!process.argv.includes('--no-build')) {
    const build = spawnSync('npx', ['nx', 'run', '@k/clientset:build', '--output-style=static'], {
      cwd: repositoryRoot,
      stdio: 'inherit',
    });
    if (build.status !== 0) throw new Error('building @k/clientset (and the layers below) failed');
  }
  const load = loadavg()
    .map((value) => format(value, 2))
    .join(' ');
  console.log(`import cost: ${rounds} rounds of ${TARGETS.length} fresh processes…`);
  const imports = importTable(measureImports(rounds));
  console.log(imports.table);
  console.log(imports.verdict.join('\n'));
  console.log(`LIST: ${repeats} child processes per client…`);
  const lists = await measureLists(repeats);
  console.log(lists.table);
  console.log(lists.verdict.join('\n'));
  const report = `# clientset

Generated by \`bench/clientset-import.bench.ts\` on ${new Date().toISOString().slice(0, 10)}: Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${megabytes(totalmem())} MB, load average at start ${load}.

## Import cost (built dist, a fresh node process per sample, median of ${rounds} rounds)

${imports.table}

${imports.verdict.join('\n')}

## LIST 5,000 pods (${megabytes(lists.bytes)} MB of JSON, median of ${repeats} child processes per client)

${lists.table}

${lists.verdict.join('\n')}
`;
  mkdirSync(join(benchDirectory, 'results'), { recursive: true });
  writeFileSync(join(benchDirectory, 'results', 'clientset.md'), report);
  console.log('wrote bench/results/clientset.md');
}

await main();
