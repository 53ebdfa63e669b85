// Measures warm starts (binaries cached): each run is a fresh `node` process that starts a control
// plane the way the global setup does (cache verification included), so per-process costs (module
// loading, the first verification) count. Reports p50/p90 of start→ready and stop, the step split,
// and with --namespace-delete the time a namespace holding 20 ConfigMaps takes to go away.
// Usage: npx tsx tools/testenv/bench/warm-start.ts [runs=5] [--no-controller-manager]
//          [--no-scheduler] [--nodes=N] [--namespace-delete]
import { execFile } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { startControlPlane } from '../src/control-plane.js';
import { kubeRequest } from '../src/kube-request.js';
import type { ProgressEvent } from '../src/progress.js';

/** RunResult is what one child process measured. */
interface RunResult {
  readonly readyMs: number;
  readonly stopMs: number;
  readonly steps: Record<string, number>;
  readonly namespaceDeleteMs?: number;
}

const flags = process.argv.slice(2);
const runs = Number(flags.find((argument) => /^\d+$/.test(argument)) ?? 5);
const controllerManager = !flags.includes('--no-controller-manager');
const scheduler = !flags.includes('--no-scheduler');
const nodes = Number(
  flags.find((argument) => argument.startsWith('--nodes='))?.slice('--nodes='.length) ?? 2,
);
const namespaceDelete = flags.includes('--namespace-delete');

if (flags.includes('--child')) {
  const steps: Record<string, number> = {};
  const onProgress = (event: ProgressEvent) => {
    if (event.kind === 'end') steps[event.step] = event.elapsedMs;
  };
  const startedAt = performance.now();
  const plane = await startControlPlane({ controllerManager, scheduler, nodes, onProgress });
  const readyMs = performance.now() - startedAt;
  let namespaceDeleteMs: number | undefined;
  if (namespaceDelete) namespaceDeleteMs = await measureNamespaceDeletion(plane);
  const stoppingAt = performance.now();
  await plane.stop();
  const result: RunResult = {
    readyMs,
    stopMs: performance.now() - stoppingAt,
    steps,
    namespaceDeleteMs,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else {
  const script = fileURLToPath(import.meta.url);
  const results: RunResult[] = [];
  const loads: number[] = [];
  for (let run = 0; run < runs; run++) {
    loads.push(loadavg()[0] ?? 0);
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [...process.execArgv, script, '--child', ...flags],
        { timeout: 300_000 },
        (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
      ),
    );
    results.push(JSON.parse(stdout.trim().split('\n').at(-1) as string) as RunResult);
  }
  const percentile = (values: readonly number[], p: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
  };
  const summary = (values: readonly number[]) =>
    `p50 ${Math.round(percentile(values, 50))} ms, p90 ${Math.round(percentile(values, 90))} ms ` +
    `(${values.map((value) => Math.round(value)).join(', ')})`;
  const stepNames = [...new Set(results.flatMap((result) => Object.keys(result.steps)))];
  const lines = [
    `controller-manager ${controllerManager ? 'on' : 'off'}, scheduler ${scheduler ? 'on' : 'off'}, ${nodes} nodes, ${runs} fresh processes, load average ${loads.map((load) => load.toFixed(1)).join(' ')}`,
    `start to ready: ${summary(results.map((result) => result.readyMs))}`,
    `stop: ${summary(results.map((result) => result.stopMs))}`,
    ...stepNames.map(
      (step) =>
        `  ${step}: ${summary(results.map((result) => result.steps[step] ?? Number.NaN).filter((value) => !Number.isNaN(value)))}`,
    ),
  ];
  if (namespaceDelete)
    lines.push(
      `namespace deletion (20 ConfigMaps): ${summary(results.map((result) => result.namespaceDeleteMs ?? 0))}`,
    );
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** measureNamespaceDeletion creates a namespace with 20 ConfigMaps, deletes it and times until 404. */
async function measureNamespaceDeletion(plane: Awaited<ReturnType<typeof startControlPlane>>) {
  const asAdmin = { server: plane.server, caPem: plane.caPem, credentials: plane.users.admin };
  const name = `bench-${Date.now()}`;
  await kubeRequest({
    ...asAdmin,
    path: '/api/v1/namespaces',
    method: 'POST',
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
  });
  await Promise.all(
    Array.from({ length: 20 }, (_, index) =>
      kubeRequest({
        ...asAdmin,
        path: `/api/v1/namespaces/${name}/configmaps`,
        method: 'POST',
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${index}` } },
      }),
    ),
  );
  const deletingAt = performance.now();
  await kubeRequest({ ...asAdmin, path: `/api/v1/namespaces/${name}`, method: 'DELETE' });
  while ((await kubeRequest({ ...asAdmin, path: `/api/v1/namespaces/${name}` })).status !== 404)
    await sleep(20);
  return performance.now() - deletingAt;
}
