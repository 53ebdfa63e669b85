/**
 * @k/rest against raw undici + JSON.parse (the physical limit) and @kubernetes/client-node 1.4.0,
 * in one run, over plain HTTP and TLS:
 *
 *   npx tsx --conditions=@k/source bench/rest.bench.ts
 *
 * The fake API server (bench/rest-server.ts) runs in its own process. Rows: sequential GET of a
 * Pod, 32-concurrent GET, sequential POST of a ConfigMap, LIST of 5,000 Pods (time from request to
 * decoded objects in hand, cold and warm, and peak RSS — each client in a child process of its
 * own, bench/rest-list-child.ts run as a plain node program, so their heaps do not pollute each
 * other; they load the built dist, so build first: `npx nx run-many -t build`) and a watch of 20,000
 * events. Throttles are off (client-node has none). Throughput workloads run in batches that
 * rotate across the clients and each client reports its median batch, so load from other processes
 * falls on all alike; the client-side CPU time per operation is reported too. Writes
 * bench/results/rest.md.
 *
 * Environment: BENCH_REQUESTS (per workload and client, default 4000), BENCH_BATCHES (40),
 * BENCH_WATCH_BATCHES (9), BENCH_LIST_REPEATS (7),
 * BENCH_CONCURRENCY (32), BENCH_LIST_PODS (5000), BENCH_LIST_WARM (5), BENCH_WATCH_EVENTS (20000),
 * BENCH_CLIENTS (comma-separated kinds, default all: raw-undici,k-rest,k-rest-transport,client-node).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatePki } from '@k/testenv';
import {
  CLIENT_KINDS,
  CLIENT_NAMES,
  makeClient,
  type BenchClient,
  type BenchTarget,
  type ClientKind,
} from './rest-clients.js';
import { plainNodeProgram } from './plain-node-program.js';

interface ListResult {
  coldMs: number;
  coldCpuMs: number;
  warmMs: number;
  warmCpuMs: number;
  baselineRss: number;
  peakRss: number;
  error?: string;
}

const here = (name: string): string => fileURLToPath(new URL(name, import.meta.url));

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? Number.NaN;
}

async function throughput(
  operation: () => Promise<unknown>,
  requests: number,
  concurrency: number,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < requests) {
      next += 1;
      await operation();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, requests) }, worker));
}

/** Measured is one client's result for a workload: the median over its interleaved batches. */
interface Measured {
  /** perSecond is the median batch's operations per second. */
  perSecond: number;
  /** cpuUsPerOperation is the median batch's CPU time of this process per operation. */
  cpuUsPerOperation: number;
}

/**
 * interleave runs `batch` for every client in turn, `batches` times, rotating who goes first, and
 * takes each client's median batch — so load from other processes on a shared machine falls on
 * every client alike, and a burst of it spoils one batch, not a client's result.
 */
async function interleave(
  clients: readonly BenchClient[],
  batches: number,
  batch: (client: BenchClient) => Promise<number>,
): Promise<Measured[]> {
  const rates = clients.map((): number[] => []);
  const cpu = clients.map((): number[] => []);
  for (let round = 0; round < batches; round += 1) {
    for (let offset = 0; offset < clients.length; offset += 1) {
      const index = (round + offset) % clients.length;
      const client = clients[index];
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      const operations = await batch(client);
      const wallMs = performance.now() - started;
      const used = process.cpuUsage(cpuBefore);
      rates[index]?.push((operations / wallMs) * 1000);
      cpu[index]?.push((used.user + used.system) / operations);
    }
  }
  return clients.map((_, index) => ({
    perSecond: median(rates[index] ?? []),
    cpuUsPerOperation: median(cpu[index] ?? []),
  }));
}

async function listInChild(
  program: string,
  kind: ClientKind,
  target: BenchTarget,
  env: NodeJS.ProcessEnv,
): Promise<ListResult> {
  const child: ChildProcess = fork(program, [kind, target.origin], {
    env: { ...env, ...(target.caPem ? { K_BENCH_CA: target.caPem } : {}) },
    // A plain node program on k's built dist, as applications run (see plainNodeProgram).
    execArgv: ['--expose-gc'],
  });
  const [message] = (await once(child, 'message')) as [ListResult];
  await once(child, 'exit');
  if (message.error) throw new Error(`${kind} list child failed: ${message.error}`);
  return message;
}

function format(value: number, digits = 0): string {
  return value.toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

function megabytes(bytes: number): string {
  return format(bytes / 1024 / 1024, 0);
}

async function main(): Promise<void> {
  const requests = Number(process.env.BENCH_REQUESTS ?? 4000);
  const batches = Number(process.env.BENCH_BATCHES ?? 40);
  const watchBatches = Number(process.env.BENCH_WATCH_BATCHES ?? 9);
  const listRepeats = Number(process.env.BENCH_LIST_REPEATS ?? 7);
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
  const listPods = Number(process.env.BENCH_LIST_PODS ?? 5000);
  const watchEvents = Number(process.env.BENCH_WATCH_EVENTS ?? 20_000);
  const kinds = (process.env.BENCH_CLIENTS?.split(',') as ClientKind[] | undefined) ?? [
    ...CLIENT_KINDS,
  ];
  const env = {
    ...process.env,
    BENCH_LIST_PODS: String(listPods),
    BENCH_WATCH_EVENTS: String(watchEvents),
  };

  const startLoad = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
  const pkiDir = mkdtempSync(join(tmpdir(), 'k-bench-rest-pki-'));
  const pki = await generatePki(pkiDir);
  const server = fork(here('./rest-server.ts'), ['--serve'], {
    env: { ...env, K_BENCH_TLS_CERT: pki.serverCertPath, K_BENCH_TLS_KEY: pki.serverKeyPath },
  });
  const [ports] = (await once(server, 'message')) as [{ plainPort: number; tlsPort: number }];
  const targets: { name: string; target: BenchTarget }[] = [
    { name: 'plain HTTP', target: { origin: `http://127.0.0.1:${ports.plainPort}` } },
    { name: 'TLS', target: { origin: `https://127.0.0.1:${ports.tlsPort}`, caPem: pki.caPem } },
  ];

  const perBatch = Math.max(1, Math.round(requests / batches));
  const workloads: {
    name: string;
    unit: string;
    batch: (client: BenchClient) => Promise<number>;
  }[] = [
    {
      name: 'sequential GET',
      unit: 'req/s',
      batch: async (client) => (await throughput(() => client.getPod(), perBatch, 1), perBatch),
    },
    {
      name: `${concurrency}-concurrent GET`,
      unit: 'req/s',
      batch: async (client) => (
        await throughput(() => client.getPod(), perBatch, concurrency),
        perBatch
      ),
    },
    {
      name: 'POST',
      unit: 'req/s',
      batch: async (client) => (
        await throughput(() => client.postConfigMap(), perBatch, 1),
        perBatch
      ),
    },
    {
      name: `watch of ${format(watchEvents)} events`,
      unit: 'events/s',
      batch: async (client) => {
        const count = await client.watchPods();
        if (count !== watchEvents) throw new Error(`${client.name} saw ${count} events`);
        return count;
      },
    },
  ];

  const results = new Map<string, Measured>();
  const key = (target: string, workload: string, kind: ClientKind): string =>
    `${target}\u0000${workload}\u0000${kind}`;
  for (const { name: targetName, target } of targets) {
    const clients = await Promise.all(kinds.map((kind) => makeClient(kind, target)));
    // Warm up: JIT, connections, TLS sessions.
    for (const client of clients) {
      await throughput(() => client.getPod(), 200, concurrency);
      await throughput(() => client.postConfigMap(), 50, 1);
      await client.watchPods();
    }
    for (const workload of workloads) {
      const measured = await interleave(
        clients,
        workload.name.startsWith('watch') ? watchBatches : batches,
        workload.batch,
      );
      kinds.forEach((kind, index) => {
        const value = measured[index];
        results.set(key(targetName, workload.name, kind), value);
        process.stderr.write(
          `${targetName} ${workload.name} ${CLIENT_NAMES[kind]}: ${format(value.perSecond)} ${workload.unit}, ${format(value.cpuUsPerOperation, 1)} µs CPU/op\n`,
        );
      });
    }
    for (const client of clients) await client.close();
  }

  const lists = new Map<string, ListResult[]>();
  const listProgram = await plainNodeProgram(here('./rest-list-child.ts'));
  for (let repeat = 0; repeat < listRepeats; repeat += 1) {
    for (const { name: targetName, target } of targets) {
      for (let offset = 0; offset < kinds.length; offset += 1) {
        const kind = kinds[(repeat + offset) % kinds.length];
        const result = await listInChild(listProgram, kind, target, env);
        const entry = `${targetName}\u0000${kind}`;
        lists.set(entry, [...(lists.get(entry) ?? []), result]);
        process.stderr.write(
          `${targetName} LIST ${CLIENT_NAMES[kind]}: cold ${format(result.coldMs)} ms, warm ${format(result.warmMs)} ms, peak RSS ${megabytes(result.peakRss)} MB\n`,
        );
      }
    }
  }
  const listMedian = (entry: string): ListResult | undefined => {
    const all = lists.get(entry);
    if (!all) return undefined;
    return {
      coldMs: median(all.map((result) => result.coldMs)),
      coldCpuMs: median(all.map((result) => result.coldCpuMs)),
      warmMs: median(all.map((result) => result.warmMs)),
      warmCpuMs: median(all.map((result) => result.warmCpuMs)),
      baselineRss: median(all.map((result) => result.baselineRss)),
      peakRss: median(all.map((result) => result.peakRss)),
    };
  };
  server.send('exit');
  rmSync(pkiDir, { recursive: true, force: true });

  const baselineKind = kinds[0];
  const lines: string[] = [
    '# Benchmark: @k/rest vs raw undici + JSON.parse vs @kubernetes/client-node 1.4.0',
    '',
    'Generated by `npx tsx --conditions=@k/source bench/rest.bench.ts`.',
    '',
    `Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load average ${startLoad} at the start; fake API server (bench/rest-server.ts)`,
    `in its own process on loopback, plain HTTP and TLS (ECDSA P-256). ${format(requests)} requests per`,
    `throughput workload per client, run as ${batches} interleaved batches (watches: ${watchBatches} of one`,
    'watch each) after a warm-up; each client reports its median batch, so load from other processes',
    'falls on every client alike and a burst of it spoils one batch, not a result. Throttles off.',
    `GET returns a ~2.6 KB Pod, POST sends and receives a ~1 KB ConfigMap, LIST returns ${format(listPods)}`,
    `Pods, the watch streams ${format(watchEvents)} MODIFIED Pod events.`,
    'Every client decodes every body. LIST rows come from one child process per client, a plain node program on the built dist (median of',
    `${listRepeats} children each): cold = first list, warm = median of the next ${process.env.BENCH_LIST_WARM ?? 5}; RSS after connecting`,
    '("before": after a full GC; runtime and the client\'s modules) and the peak of the cold list',
    '(Linux VmHWM, reset just before the list, read with its objects in hand).',
    '"client CPU per op" is the CPU time of the benchmark process (the server is elsewhere) per request or',
    'event (for LIST, per list, in its child); "CPU vs raw" is raw ÷ client. On a shared, busy machine wall',
    "time includes waiting for a core, CPU time does not: it is the steadier measure of the layer's cost.",
    '"vs raw" is throughput ÷ raw undici (higher is better) for rates, and raw ÷ client for times',
    '(so 1.00x = raw speed, below 0.90x misses the target); for RSS it is client ÷ raw (lower is better),',
    'for the peak and, after "+:", for the growth over "before" — what the list itself cost.',
    '',
  ];
  for (const { name: targetName } of targets) {
    lines.push(`## ${targetName}`, '');
    lines.push('| workload | client | result | vs raw | client CPU per op | CPU vs raw |');
    lines.push('| --- | --- | ---: | ---: | ---: | ---: |');
    for (const workload of workloads) {
      const base = results.get(key(targetName, workload.name, baselineKind));
      for (const kind of kinds) {
        const value = results.get(key(targetName, workload.name, kind));
        if (!value || !base) continue;
        lines.push(
          `| ${workload.name} | ${CLIENT_NAMES[kind]} | ${format(value.perSecond)} ${workload.unit} | ${format(value.perSecond / base.perSecond, 2)}x | ${format(value.cpuUsPerOperation, 1)} µs | ${format(base.cpuUsPerOperation / value.cpuUsPerOperation, 2)}x |`,
        );
      }
    }
    const baseList = listMedian(`${targetName}\u0000${baselineKind}`);
    const times = (value: number): string => `${format(value, 2)}x`;
    const listRows = (
      label: string,
      cell: (list: ListResult) => string,
      ratio: (list: ListResult, base: ListResult) => string,
      cpu?: (list: ListResult) => number,
    ) => {
      for (const kind of kinds) {
        const list = listMedian(`${targetName}\u0000${kind}`);
        if (!list || !baseList) continue;
        const cpuCells = cpu
          ? `${format(cpu(list))} ms | ${times(cpu(baseList) / cpu(list))}`
          : ' | ';
        lines.push(
          `| LIST ${format(listPods)} pods, ${label} | ${CLIENT_NAMES[kind]} | ${cell(list)} | ${ratio(list, baseList)} | ${cpuCells} |`,
        );
      }
    };
    listRows(
      'cold',
      (list) => `${format(list.coldMs)} ms`,
      (list, base) => times(base.coldMs / list.coldMs),
      (list) => list.coldCpuMs,
    );
    listRows(
      'warm',
      (list) => `${format(list.warmMs)} ms`,
      (list, base) => times(base.warmMs / list.warmMs),
      (list) => list.warmCpuMs,
    );
    listRows(
      'peak RSS',
      (list) =>
        `${megabytes(list.peakRss)} MB (${megabytes(list.baselineRss)} MB before, +${megabytes(list.peakRss - list.baselineRss)})`,
      (list, base) =>
        `${times(list.peakRss / base.peakRss)} (+: ${times((list.peakRss - list.baselineRss) / (base.peakRss - base.baselineRss))})`,
    );
    lines.push('');
  }
  const markdown = lines.join('\n');
  writeFileSync(here('./results/rest.md'), `${markdown}\n`);
  process.stdout.write(`${markdown}\n`);
}

await main();
