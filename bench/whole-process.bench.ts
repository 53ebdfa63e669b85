/**
 * What a CLI tool pays for one call: `node program.mjs` from spawn to exit — Node's start, the
 * imports, the configuration, one LIST of 5,000 Pods (decoded), and the exit by itself (no
 * `process.exit`: a client that keeps the process alive after its work shows here). Each program is
 * plain JavaScript on the built packages, as users run them:
 *
 * - raw undici: `new Agent({ connect: { ca } })`, `request`, `JSON.parse(await body.text())`,
 *   with the server and CA handed in by environment (the floor: no kubeconfig at all);
 * - @k/clientset: `inferClientset()` (reads `$KUBECONFIG`), `coreV1.pods('default').list()`;
 * - @k/clientset by DI: `registerClientset` into a tsyringe child container, `resolve(CLIENTSET)`,
 *   with `reflect-metadata` imported by the program (the config from `inferConfig()`);
 * - @kubernetes/client-node 1.4.0: `loadFromDefault()`, `makeApiClient(CoreV1Api)`,
 *   `listNamespacedPod`.
 *
 *   npx nx run-many -t build && npx tsx bench/whole-process.bench.ts
 *
 * The fake API server (bench/rest-server.ts, TLS) runs in its own process. Programs run in
 * interleaved rounds (BENCH_ROUNDS, default 15) with the order rotated; figures are medians.
 * "first request" is the time from the process's start (`performance.timeOrigin`) to the moment
 * the program calls the list — the start-up cost before anything is sent. Writes
 * bench/results/whole-process.md.
 */
import { spawn, fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatePki } from '@k/testenv';
import { format, loadAverage, median } from './figures.js';

const here = (name: string): string => fileURLToPath(new URL(name, import.meta.url));

interface Program {
  name: string;
  source: string;
}

// Every program reports, as it exits, when it sent its request and what CPU it used.
const REPORT = `process.on('exit', () => { const cpu = process.cpuUsage(); process.stdout.write(JSON.stringify({ firstRequestMs: globalThis.firstRequestMs, listDoneMs: globalThis.listDoneMs, exitMs: performance.now(), cpuMs: (cpu.user + cpu.system) / 1000, items: globalThis.items })); });`;

const PROGRAMS: Program[] = [
  {
    name: 'raw undici + JSON.parse',
    source: `${REPORT}
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
const dispatcher = new Agent({ connect: { ca: readFileSync(process.env.BENCH_CA_FILE, 'utf8') } });
globalThis.firstRequestMs = performance.now();
const response = await request(process.env.BENCH_SERVER + '/api/v1/namespaces/default/pods', { dispatcher, headers: { accept: 'application/json' } });
globalThis.items = JSON.parse(await response.body.text()).items.length;
globalThis.listDoneMs = performance.now();
`,
  },
  {
    name: '@k/clientset inferClientset()',
    source: `${REPORT}
import { inferClientset } from '@k/clientset';
const clientset = await inferClientset({ throttle: 'off' });
globalThis.firstRequestMs = performance.now();
const list = await clientset.coreV1.pods('default').list();
globalThis.items = list.items.length;
globalThis.listDoneMs = performance.now();
`,
  },
  {
    name: '@k/clientset by DI (registerClientset)',
    source: `${REPORT}
import 'reflect-metadata';
import { container } from 'tsyringe';
import { inferConfig } from '@k/config';
import { CLIENTSET, registerClientset } from '@k/clientset/di';
const config = await inferConfig();
const clientset = registerClientset(container.createChildContainer(), { config, throttle: 'off' }).resolve(CLIENTSET);
globalThis.firstRequestMs = performance.now();
const list = await clientset.coreV1.pods('default').list();
globalThis.items = list.items.length;
globalThis.listDoneMs = performance.now();
`,
  },
  {
    name: '@kubernetes/client-node 1.4.0',
    source: `${REPORT}
import * as k8s from '@kubernetes/client-node';
const config = new k8s.KubeConfig();
config.loadFromDefault();
const core = config.makeApiClient(k8s.CoreV1Api);
globalThis.firstRequestMs = performance.now();
const list = await core.listNamespacedPod({ namespace: 'default' });
globalThis.items = list.items.length;
globalThis.listDoneMs = performance.now();
`,
  },
];

interface Run {
  wallMs: number;
  firstRequestMs: number;
  /** listMs is the list call to its decoded items; afterListMs from there to the 'exit' event. */
  listMs: number;
  afterListMs: number;
  cpuMs: number;
}

async function runProgram(file: string, env: NodeJS.ProcessEnv, pods: number): Promise<Run> {
  const started = performance.now();
  const child = spawn(process.execPath, [file], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  const wallMs = performance.now() - started;
  if (code !== 0) throw new Error(`${file} exited with ${code}: ${stderr}`);
  const report = JSON.parse(stdout) as {
    firstRequestMs: number;
    listDoneMs: number;
    exitMs: number;
    cpuMs: number;
    items: number;
  };
  if (report.items !== pods) throw new Error(`${file} listed ${report.items} pods`);
  return {
    wallMs,
    firstRequestMs: report.firstRequestMs,
    listMs: report.listDoneMs - report.firstRequestMs,
    afterListMs: report.exitMs - report.listDoneMs,
    cpuMs: report.cpuMs,
  };
}

async function main(): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 15);
  const pods = Number(process.env.BENCH_LIST_PODS ?? 5000);
  const startLoad = loadAverage();
  // Programs live inside the workspace so `@k/*` and the peers resolve as for any project.
  const workDir = here('./.tmp-whole-process/');
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  const pki = await generatePki(join(workDir, 'pki'));
  const server = fork(here('./rest-server.ts'), ['--serve'], {
    env: {
      ...process.env,
      BENCH_LIST_PODS: String(pods),
      K_BENCH_TLS_CERT: pki.serverCertPath,
      K_BENCH_TLS_KEY: pki.serverKeyPath,
    },
  });
  try {
    const [ports] = (await once(server, 'message')) as [{ plainPort: number; tlsPort: number }];
    const origin = `https://127.0.0.1:${ports.tlsPort}`;
    const caFile = join(workDir, 'ca.crt');
    writeFileSync(caFile, pki.caPem);
    const kubeconfig = join(workDir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: bench',
        '  cluster:',
        `    server: ${origin}`,
        `    certificate-authority: ${caFile}`,
        'users:',
        '- name: bench',
        '  user:',
        '    token: bench-token',
        'contexts:',
        '- name: bench',
        '  context:',
        '    cluster: bench',
        '    user: bench',
        '    namespace: default',
        'current-context: bench',
        '',
      ].join('\n'),
    );
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: workDir,
      KUBECONFIG: kubeconfig,
      BENCH_SERVER: origin,
      BENCH_CA_FILE: caFile,
    };
    const files = PROGRAMS.map((program, index) => {
      const file = join(workDir, `program-${index}.mjs`);
      writeFileSync(file, program.source);
      return file;
    });
    // Warm the file system cache and check every program once.
    for (const file of files) await runProgram(file, env, pods);
    const runs: Run[][] = PROGRAMS.map(() => []);
    for (let round = 0; round < rounds; round += 1) {
      for (let offset = 0; offset < files.length; offset += 1) {
        const index = (round + offset) % files.length;
        runs[index]?.push(await runProgram(files[index], env, pods));
      }
    }
    const rows = PROGRAMS.map((program, index) => {
      const all = runs[index] ?? [];
      return {
        name: program.name,
        wallMs: median(all.map((run) => run.wallMs)),
        firstRequestMs: median(all.map((run) => run.firstRequestMs)),
        listMs: median(all.map((run) => run.listMs)),
        afterListMs: median(all.map((run) => run.afterListMs)),
        cpuMs: median(all.map((run) => run.cpuMs)),
      };
    });
    const raw = rows[0];
    if (!raw) throw new Error('no baseline');
    const lines = [
      '# Benchmark: the whole process — spawn, import, config, one LIST of 5,000 Pods, exit',
      '',
      'Generated by `npx tsx bench/whole-process.bench.ts` (built dist; see the file header).',
      '',
      `Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}, load average ${startLoad} at the start; fake API server (bench/rest-server.ts, TLS) in its own process; ${rounds} interleaved rounds, medians.`,
      '"vs raw" is raw ÷ program (1.00x = as fast as raw undici; higher is better). "first request" is the time from the process start to the list call (start-up: Node, imports, config, client set-up); "list" from the call to the decoded items; "list to exit" from there to the process exit event (what keeps it alive after its work).',
      '',
      '| program | spawn to exit ms | vs raw | first request ms | vs raw | list ms | list to exit ms | CPU ms | CPU vs raw |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...rows.map(
        (row) =>
          `| ${row.name} | ${format(row.wallMs)} | ${format(raw.wallMs / row.wallMs, 2)}x | ${format(row.firstRequestMs)} | ${format(raw.firstRequestMs / row.firstRequestMs, 2)}x | ${format(row.listMs)} | ${format(row.afterListMs)} | ${format(row.cpuMs)} | ${format(raw.cpuMs / row.cpuMs, 2)}x |`,
      ),
      '',
    ];
    const report = lines.join('\n');
    writeFileSync(here('./results/whole-process.md'), report);
    process.stdout.write(report);
  } finally {
    server.send('exit');
    rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
