/**
 * What an informer costs: one informer over 5,000 ConfigMaps (about 1 KB of data each, written
 * by server-side apply so each has managedFields, as objects in a real cluster do) on a real
 * kube-apiserver from tools/testenv, each variant in a fresh `node --expose-gc` process:
 *
 * - @k/runtime `Informer` as configured by default (streaming list, managedFields dropped);
 * - the same with a paged LIST instead of the streaming list (`watchList: false`);
 * - the same keeping objects as received (`transform: false`, managedFields kept);
 * - @k/runtime metadata-only (`client.asMetadata()`: PartialObjectMetadata);
 * - @kubernetes/client-node 1.4.0 `makeInformer` with `listNamespacedConfigMap`.
 *
 * Figures: time from `start` to synced, the process's peak RSS, RSS and heap after a full GC
 * once synced, and heap per 1,000 objects (heap after GC once synced minus heap after GC before
 * starting, per 1,000 cached objects). Medians of BENCH_ROUNDS (default 3) fresh processes per
 * variant, rounds interleaved.
 *
 *   npx nx run-many -t build && npx tsx bench/informer-memory.bench.ts
 *
 * Writes bench/results/informer-memory.md.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startControlPlane } from '@k/testenv';
import { format, loadAverage, median } from './figures.js';

const here = (name: string): string => fileURLToPath(new URL(name, import.meta.url));

// Every program measures around its informer and prints one JSON line.
const MEASURE = `
const namespace = process.env.BENCH_NAMESPACE;
const mb = (bytes) => bytes / 1e6;
globalThis.gc(); globalThis.gc();
const before = process.memoryUsage();
globalThis.benchStart = performance.now();
globalThis.report = (objects) => {
  const syncedMs = performance.now() - globalThis.benchStart;
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  globalThis.gc(); globalThis.gc();
  const after = process.memoryUsage();
  process.stdout.write(JSON.stringify({
    objects,
    syncedMs,
    peakRssMb,
    rssAfterGcMb: mb(after.rss),
    heapAfterGcMb: mb(after.heapUsed),
    heapPerThousandMb: mb(after.heapUsed - before.heapUsed) / (objects / 1000),
  }));
};
`;

interface Variant {
  name: string;
  setup: string;
  run: string;
}

const K_SETUP = `import { inferClientset } from '@k/clientset';
import { Informer } from '@k/runtime';
const cs = await inferClientset({ throttle: 'off' });`;

function kInformer(options: string, metadata = false): string {
  return `const informer = new Informer(cs.coreV1.configMaps(namespace)${metadata ? '.asMetadata()' : ''}, ${options});
informer.start();
await informer.waitForSync();
globalThis.report(informer.lister.size);
await informer.stop();
await cs.close();`;
}

const VARIANTS: Variant[] = [
  {
    name: '@k/runtime Informer (default: streaming list, managedFields dropped)',
    setup: K_SETUP,
    run: kInformer('{}'),
  },
  {
    name: '@k/runtime Informer, paged LIST',
    setup: K_SETUP,
    run: kInformer('{ watchList: false }'),
  },
  {
    name: '@k/runtime Informer, managedFields kept',
    setup: K_SETUP,
    run: kInformer('{ transform: false }'),
  },
  { name: '@k/runtime metadata-only Informer', setup: K_SETUP, run: kInformer('{}', true) },
  {
    name: '@kubernetes/client-node 1.4.0 makeInformer',
    setup: `import * as k8s from '@kubernetes/client-node';
const config = new k8s.KubeConfig();
config.loadFromDefault();
const core = config.makeApiClient(k8s.CoreV1Api);`,
    run: `const informer = k8s.makeInformer(config, '/api/v1/namespaces/' + namespace + '/configmaps', () => core.listNamespacedConfigMap({ namespace }));
informer.on('error', () => {});
await informer.start();
globalThis.report(informer.list().length);
await informer.stop();`,
  },
];

interface Result {
  objects: number;
  syncedMs: number;
  peakRssMb: number;
  rssAfterGcMb: number;
  heapAfterGcMb: number;
  heapPerThousandMb: number;
}

async function runProgram(file: string, env: NodeJS.ProcessEnv, expected: number): Promise<Result> {
  const child = spawn(process.execPath, ['--expose-gc', file], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  if (code !== 0) throw new Error(`${file} exited with ${code}: ${stderr}`);
  const result = JSON.parse(stdout) as Result;
  if (result.objects !== expected) throw new Error(`${file} cached ${result.objects} objects`);
  return result;
}

async function main(): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const count = Number(process.env.BENCH_CONFIGMAPS ?? 5000);
  const startLoad = loadAverage();
  const workDir = here('./.tmp-informer-memory/');
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  const plane = await startControlPlane({ nodes: 0, controllerManager: false, scheduler: false });
  try {
    // Loaded here, not at the top: the lint keeps @k/clientset lazily loaded in bench/.
    const { inferClientset } = await import('@k/clientset');
    const cs = await inferClientset({
      kubeconfig: plane.kubeconfigPath,
      context: 'admin',
      throttle: 'off',
    });
    const namespace = 'bench-informer';
    await cs.coreV1
      .namespaces()
      .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    const configMaps = cs.coreV1.configMaps(namespace);
    let next = 0;
    const payload = 'x'.repeat(200);
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let index = next++; index < count; index = next++) {
          await configMaps.apply(
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: {
                name: `cm-${index}`,
                labels: { app: 'bench', shard: String(index % 10) },
              },
              data: { a: payload, b: payload, c: payload, d: payload, e: payload },
            },
            { fieldManager: 'bench-writer' },
          );
        }
      }),
    );
    const listed = await configMaps.list();
    const listBytes = Buffer.byteLength(JSON.stringify(listed));
    const managedFieldsBytes = listed.items.reduce(
      (sum, item) => sum + Buffer.byteLength(JSON.stringify(item.metadata?.managedFields ?? [])),
      0,
    );
    await cs.close();

    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: workDir,
      KUBECONFIG: plane.kubeconfigPath,
      BENCH_NAMESPACE: namespace,
    };
    const files = VARIANTS.map((variant, index) => {
      const file = join(workDir, `informer-${index}.mjs`);
      writeFileSync(file, `${variant.setup}\n${MEASURE}\n${variant.run}\n`);
      return file;
    });
    for (const file of files) await runProgram(file, env, count); // warm up, check each once
    const results: Result[][] = VARIANTS.map(() => []);
    for (let round = 0; round < rounds; round += 1) {
      for (let offset = 0; offset < files.length; offset += 1) {
        const index = (round + offset) % files.length;
        results[index].push(await runProgram(files[index], env, count));
      }
    }
    const rows = VARIANTS.map((variant, index) => {
      const all = results[index];
      const pick = (key: keyof Result) => median(all.map((result) => result[key]));
      return {
        name: variant.name,
        syncedMs: pick('syncedMs'),
        peakRssMb: pick('peakRssMb'),
        rssAfterGcMb: pick('rssAfterGcMb'),
        heapPerThousandMb: pick('heapPerThousandMb'),
      };
    });
    const lines = [
      `# Benchmark: one informer over ${count.toLocaleString('en-US')} ConfigMaps — time to synced and memory`,
      '',
      'Generated by `npx tsx bench/informer-memory.bench.ts` (built dist; see the file header).',
      '',
      `Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}, load average ${startLoad} at the start; a real kube-apiserver (tools/testenv, watch cache on) on the same machine; ${rounds} fresh processes per variant, interleaved, medians.`,
      `The list is ${format(listBytes / 1e6)} MB of JSON, ${format((100 * managedFieldsBytes) / listBytes, 0)}% of it managedFields.`,
      '',
      '| informer | time to synced ms | peak RSS MB | RSS after GC MB | heap per 1,000 objects MB |',
      '| --- | ---: | ---: | ---: | ---: |',
      ...rows.map(
        (row) =>
          `| ${row.name} | ${format(row.syncedMs, 0)} | ${format(row.peakRssMb)} | ${format(row.rssAfterGcMb)} | ${format(row.heapPerThousandMb, 2)} |`,
      ),
      '',
    ];
    const report = lines.join('\n');
    writeFileSync(here('./results/informer-memory.md'), report);
    process.stdout.write(report);
  } finally {
    await plane.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
