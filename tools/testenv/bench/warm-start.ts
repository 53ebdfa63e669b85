// Measures warm starts (binaries cached): time to ready and time to stop, N runs in sequence.
// Usage: npx tsx tools/testenv/bench/warm-start.ts [runs=5] [--no-controller-manager] [--nodes=N]
import { ensureBinaries } from '../src/build.js';
import { startControlPlane } from '../src/control-plane.js';

const runs = Number(process.argv.find((argument) => /^\d+$/.test(argument)) ?? 5);
const controllerManager = !process.argv.includes('--no-controller-manager');
const nodes = Number(
  process.argv.find((argument) => argument.startsWith('--nodes='))?.slice('--nodes='.length) ?? 2,
);
const verifyStartedAt = performance.now();
const binaries = await ensureBinaries({ build: false, kwok: nodes > 0 });
const verifyMs = performance.now() - verifyStartedAt;
const ready: number[] = [];
const stopped: number[] = [];
for (let run = 0; run < runs; run++) {
  const startedAt = performance.now();
  // Like the global setup, including the cache verification (checksums) each start does.
  const controlPlane = await startControlPlane({ controllerManager, nodes });
  ready.push(performance.now() - startedAt);
  const stoppingAt = performance.now();
  await controlPlane.stop();
  stopped.push(performance.now() - stoppingAt);
}
const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  return `median ${Math.round(median)} ms, min ${Math.round(sorted[0] ?? 0)} ms, max ${Math.round(sorted.at(-1) ?? 0)} ms`;
};
process.stdout.write(
  [
    `kubernetes v${binaries.kubernetesVersion}, controller-manager ${controllerManager ? 'on' : 'off'}, ${nodes} nodes, ${runs} runs`,
    `cache verification (sha256 of ${Object.keys(binaries.stamp.files).length} files): ${Math.round(verifyMs)} ms`,
    `start to ready: ${summary(ready)} (${ready.map((value) => Math.round(value)).join(', ')})`,
    `stop: ${summary(stopped)} (${stopped.map((value) => Math.round(value)).join(', ')})`,
    '',
  ].join('\n'),
);
