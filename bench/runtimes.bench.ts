/**
 * k on each runtime users run it on: Node 24 (primary), 22 and 26, Bun and Deno, at the versions
 * @k/runtimes pins, against the REAL kube-apiserver of tools/testenv (not a fake server: the
 * figures include the server's own work, the same for every runtime). One plain JavaScript
 * program on the built packages (`@k/clientset`, admin's client certificate over TLS, throttle
 * off) measures:
 *
 * - start-up: from `spawn` to the first response read (the runtime's start, the imports, the
 *   kubeconfig, the TLS handshake, one GET of Namespace `default`), measured by this process;
 * - GETs/s of one client: the same GET in a loop for BENCH_SECONDS (default 5) after 50 warm-up
 *   GETs, one request in flight, then eight.
 *
 *   npx nx run-many -t build && npx tsx bench/runtimes.bench.ts
 *
 * The packages are packed and installed into an empty project (@k/test-utils'
 * installPackedPackages), where the program runs.
 *
 * A running plane is used when K_TESTENV_KUBECONFIG names one (`npx k-testenv up`), else one is
 * started (without controllers or nodes) and stopped. Runtimes run in BENCH_ROUNDS (default 3)
 * interleaved rounds with the order rotated, so load hits them alike; figures are medians. The
 * load average is recorded before and after. Writes bench/results/runtimes.md.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureRuntime, type RuntimeName } from '@k/runtimes';
import { installPackedPackages } from '@k/test-utils';
import { startControlPlane } from '@k/testenv';
import { format, loadAverage, median } from './figures.js';

const here = (name: string): string => fileURLToPath(new URL(name, import.meta.url));

/** PROGRAM prints `first response` once its first GET is read, then GETs/s for `get` mode. */
const PROGRAM = `import { inferClientset } from '@k/clientset';
const [mode, seconds, concurrency] = process.argv.slice(-3);
const clientset = await inferClientset({ throttle: 'off' });
const namespaces = clientset.coreV1.namespaces();
await namespaces.get('default');
process.stdout.write('first response\\n');
if (mode === 'get') {
  for (let warm = 0; warm < 50; warm += 1) await namespaces.get('default');
  let requests = 0;
  const started = performance.now();
  const end = started + Number(seconds) * 1000;
  await Promise.all(
    Array.from({ length: Number(concurrency) }, async () => {
      while (performance.now() < end) {
        await namespaces.get('default');
        requests += 1;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  process.stdout.write(JSON.stringify({ perSecond: requests / elapsed }) + '\\n');
}
await clientset.close();
`;

interface Runtime {
  label: string;
  name: RuntimeName;
  version: string;
  command: (file: string, args: readonly string[]) => [string, string[]];
}

/** run starts the program and resolves with the spawn-to-first-response time and what it printed. */
async function run(
  runtime: Runtime,
  file: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ firstResponseMs: number; perSecond: number | undefined }> {
  const [command, commandArgs] = runtime.command(file, args);
  const started = performance.now();
  const child = spawn(command, commandArgs, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let firstResponseMs = Number.NaN;
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (Number.isNaN(firstResponseMs) && stdout.includes('first response\n')) {
      firstResponseMs = performance.now() - started;
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new Error(`${runtime.label} exited with ${code}: ${stderr}`);
  const last = stdout.trim().split('\n').at(-1) ?? '';
  const perSecond = last.startsWith('{')
    ? (JSON.parse(last) as { perSecond: number }).perSecond
    : undefined;
  return { firstResponseMs, perSecond };
}

async function main(): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const runtimes: Runtime[] = [];
  for (const [label, name] of [
    ['Node 24', 'node@24'],
    ['Node 22', 'node@22'],
    ['Node 26', 'node@26'],
    ['Bun', 'bun'],
    ['Deno', 'deno'],
  ] as const) {
    const installed = await ensureRuntime(name, { log: (line) => console.error(line) });
    runtimes.push({
      label,
      name,
      version: installed.version,
      command: (file, args) =>
        name === 'deno'
          ? [installed.executable, ['run', '-A', file, ...args]]
          : name === 'bun'
            ? [installed.executable, ['--no-install', file, ...args]]
            : [installed.executable, [file, ...args]],
    });
  }

  const given = process.env.K_TESTENV_KUBECONFIG;
  const plane = given
    ? undefined
    : await startControlPlane({ controllerManager: false, scheduler: false, nodes: 0 });
  // The packages packed and installed into an empty project, as users get them (and safe from a
  // build of the workspace that empties dist/ while the runs go on).
  const installed = await installPackedPackages({
    packages: ['config', 'transport', 'rest', 'clientset'],
  });
  try {
    const undici = (
      JSON.parse(
        readFileSync(join(installed.directory, 'node_modules/undici/package.json'), 'utf8'),
      ) as { version: string }
    ).version;
    const file = join(installed.directory, 'program.mjs');
    writeFileSync(file, PROGRAM);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      KUBECONFIG: given ?? plane?.kubeconfigPath,
      DENO_NO_UPDATE_CHECK: '1',
      NO_COLOR: '1',
    };
    const startLoad = loadAverage();
    // Warm the file system and the runtimes' own caches, and check each once.
    for (const runtime of runtimes) await run(runtime, file, ['start', '0', '0'], env);
    const startUps = runtimes.map((): number[] => []);
    const sequential = runtimes.map((): number[] => []);
    const concurrent = runtimes.map((): number[] => []);
    for (let round = 0; round < rounds; round += 1) {
      for (let offset = 0; offset < runtimes.length; offset += 1) {
        const index = (round + offset) % runtimes.length;
        const runtime = runtimes[index];
        for (let start = 0; start < 3; start += 1) {
          startUps[index].push(
            (await run(runtime, file, ['start', '0', '0'], env)).firstResponseMs,
          );
        }
        const one = await run(runtime, file, ['get', String(seconds), '1'], env);
        const eight = await run(runtime, file, ['get', String(seconds), '8'], env);
        sequential[index].push(one.perSecond ?? Number.NaN);
        concurrent[index].push(eight.perSecond ?? Number.NaN);
      }
    }
    const endLoad = loadAverage();
    const primary = median(sequential[0]);
    const primaryStart = median(startUps[0]);
    const lines = [
      '# Benchmark: k on Node 24, 22 and 26, Bun and Deno, against the real kube-apiserver',
      '',
      'Generated by `npx tsx bench/runtimes.bench.ts` (the packed packages, installed into an empty project; see the file header).',
      '',
      `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}; \`uptime\` load average ${startLoad} at the start, ${endLoad} at the end; kube-apiserver of tools/testenv on the same machine (loopback, TLS, admin's client certificate); undici ${undici}; ${rounds} interleaved rounds, medians (start-up: 3 starts per round).`,
      '"start-up" is spawn to the first response read (runtime start, imports, kubeconfig, TLS, one GET). "GETs/s" is `coreV1.namespaces().get(\'default\')` in a loop for ' +
        `${seconds} s with one request in flight (c=1) or eight (c=8), throttle off; the server's work is in every figure.`,
      '',
      '| runtime | version | start-up ms | vs Node 24 | GETs/s c=1 | vs Node 24 | GETs/s c=8 |',
      '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
      ...runtimes.map((runtime, index) => {
        const start = median(startUps[index]);
        const one = median(sequential[index]);
        return `| ${runtime.label} | ${runtime.version} | ${format(start)} | ${format(start / primaryStart, 2)}x | ${format(one)} | ${format(one / primary, 2)}x | ${format(median(concurrent[index]))} |`;
      }),
      '',
    ];
    const report = lines.join('\n');
    writeFileSync(here('./results/runtimes.md'), report);
    process.stdout.write(report);
  } finally {
    await installed.remove();
    await plane?.stop();
  }
}

await main();
