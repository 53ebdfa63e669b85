/**
 * What one test file adds on a shared @k/envtest plane, measured in process: each round is one
 * "file" as `@k/envtest/vitest` runs it — `connectEnvironment()` (what `useEnvironment()` does in
 * `beforeAll`), the admin clientset's first request, a test namespace created with and without
 * the wait for its `default` ServiceAccount, its deletion waited for, and `close()` (the file's
 * `afterAll`). On a plane with kube-controller-manager (nodes 0, no scheduler) and on one without
 * it, where `delete({ wait })` empties and finalizes the namespace itself. Planes come from the
 * warm cache (`~/.cache/k-testenv`); nothing is built.
 *
 *   npx tsx --conditions=@k/source bench/envtest-file.bench.ts
 *
 * Writes bench/results/envtest-file.md. BENCH_ROUNDS sets the rounds per plane (default 10).
 * The machine is shared: the report gives the load average at the start and at the end.
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { OwnedEnvironment } from '@k/envtest';
import { resolveCacheRoot } from '@k/testenv';
import { format, loadAverage, median } from './figures.js';

// Loaded as envtest-start.bench.ts loads it (the workspace's lint wants one way per library).
const { connectEnvironment, startEnvironment } = await import('@k/envtest');

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const RESULTS = fileURLToPath(new URL('./results/envtest-file.md', import.meta.url));

const STEPS = [
  'connect',
  'first request',
  'namespace (ServiceAccount wait)',
  'namespace (no wait)',
  'delete and wait',
  'close',
] as const;
type Step = (typeof STEPS)[number];

/** timed runs `work` and records its wall time under `step`. */
async function timed<T>(samples: Map<Step, number[]>, step: Step, work: () => Promise<T> | T) {
  const startedAt = performance.now();
  const value = await work();
  samples.set(step, [...(samples.get(step) ?? []), performance.now() - startedAt]);
  return value;
}

/** oneFile does what a test file does on the plane of `kubeconfigPath`, timing each step. */
async function oneFile(kubeconfigPath: string, samples: Map<Step, number[]>): Promise<void> {
  const env = await timed(samples, 'connect', () => connectEnvironment(kubeconfigPath));
  await timed(samples, 'first request', async () =>
    (await env.admin.clientset()).coreV1.namespaces().get('default'),
  );
  const waited = await timed(samples, 'namespace (ServiceAccount wait)', () =>
    env.createTestNamespace({ prefix: 'bench-file' }),
  );
  const unwaited = await timed(samples, 'namespace (no wait)', () =>
    env.createTestNamespace({ prefix: 'bench-file', waitForServiceAccount: false }),
  );
  await (async () => {
    // One configmap each, so the deletion has content to remove, as a test leaves.
    const clientset = await env.admin.clientset();
    for (const namespace of [waited, unwaited]) {
      await clientset.coreV1.configMaps(namespace.name).create({ metadata: { name: 'left' } });
    }
  })();
  await timed(samples, 'delete and wait', async () => {
    await Promise.all([waited.delete({ wait: false }), unwaited.delete({ wait: false })]);
    await Promise.all([waited.delete(), unwaited.delete()]);
  });
  await timed(samples, 'close', () => env.close());
}

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

async function measure(label: string, controllerManager: boolean): Promise<string[]> {
  const plane: OwnedEnvironment = await startEnvironment({
    binaries: 'cache',
    cacheRoot: resolveCacheRoot(),
    build: false,
    nodes: 0,
    scheduler: false,
    controllerManager,
  });
  const samples = new Map<Step, number[]>();
  try {
    await oneFile(plane.kubeconfigPath, new Map()); // warm-up: the first connect loads modules
    for (let round = 0; round < ROUNDS; round++) await oneFile(plane.kubeconfigPath, samples);
  } finally {
    await plane.stop();
  }
  const total = Array.from({ length: ROUNDS }, (_, round) =>
    STEPS.reduce((sum, step) => sum + (samples.get(step)?.[round] ?? 0), 0),
  );
  return [
    `### ${label}`,
    '',
    '| step | p50 ms | p90 ms | min ms | max ms |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...[
      ...STEPS.map((step) => [step, samples.get(step) ?? []] as const),
      ['file total', total] as const,
    ].map(
      ([step, values]) =>
        `| ${step} | ${format(median(values))} | ${format(percentile(values, 0.9))} | ${format(Math.min(...values))} | ${format(Math.max(...values))} |`,
    ),
    '',
  ];
}

const loadAtStart = loadAverage();
const report = [
  '# envtest-file: what a test file adds on a shared plane',
  '',
  `Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${ROUNDS} rounds per plane after one warm-up, in one process (\`npx tsx --conditions=@k/source bench/envtest-file.bench.ts\`). Load average at the start: ${loadAtStart}.`,
  '',
  'Each round is one file: connect (`useEnvironment()` in `beforeAll`), the first request of the admin clientset, two test namespaces (one waiting for its `default` ServiceAccount, one not), one ConfigMap in each (untimed), both deleted and waited for together (`waitForDeletion: \'file\'`), `close()` (`afterAll`). "No wait" and "ServiceAccount wait" are the same without kube-controller-manager: there is no ServiceAccount to wait for.',
  '',
  ...(await measure('kube-controller-manager running (namespace controller deletes)', true)),
  ...(await measure('no kube-controller-manager (envtest empties and finalizes itself)', false)),
  `Load average at the end: ${loadAverage()}.`,
  '',
];
const text = report.join('\n');
writeFileSync(RESULTS, text);
process.stdout.write(text);
