/**
 * One client's LIST of the fake server's PodList, in a process of its own so its memory is its
 * own (bench/rest.bench.ts forks one per client and transport). It loads only that client, lists
 * once cold and BENCH_LIST_WARM times warm, and reports the times (request start to decoded
 * objects in hand), the resident set before the first list (after a full GC, with
 * `--expose-gc`) and the peak resident set of the cold list (Linux's VmHWM, reset just before
 * it; read while its objects are still in hand).
 *
 *   argv: <client kind> <origin> ; env K_BENCH_CA: the CA PEM for https origins
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { makeClient, type ClientKind } from './rest-clients.js';

/**
 * resetPeakRss makes Linux restart the peak-RSS counter (VmHWM) from the current RSS, so the peak
 * read later belongs to the list, not to start-up (module loading, tsx). False where unsupported.
 */
function resetPeakRss(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/** peakRss is VmHWM in bytes, else the process's lifetime maximum. */
function peakRss(): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match?.[1]) return Number(match[1]) * 1024;
  } catch {
    // Not Linux: fall through.
  }
  return process.resourceUsage().maxRSS * 1024;
}

async function main(): Promise<void> {
  const [kind, origin] = process.argv.slice(2) as [ClientKind, string];
  const warmRuns = Number(process.env.BENCH_LIST_WARM ?? 5);
  const caPem = process.env.K_BENCH_CA;
  const client = await makeClient(kind, { origin, ...(caPem ? { caPem } : {}) });
  // Connect (and handshake) first, so the cold list measures decoding, not TLS set-up.
  await client.getPod();
  (globalThis as { gc?: () => void }).gc?.();
  resetPeakRss();
  const baselineRss = process.memoryUsage.rss();
  let inHand: unknown[] = [];
  const timeList = async (): Promise<{ wallMs: number; cpuMs: number }> => {
    const cpu = process.cpuUsage();
    const started = performance.now();
    inHand = await client.listPods();
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    if (inHand.length !== Number(process.env.BENCH_LIST_PODS ?? 5000)) {
      throw new Error(`listed ${inHand.length} pods`);
    }
    return { wallMs, cpuMs: (used.user + used.system) / 1000 };
  };
  // Peak RSS is read right after the cold list, its objects still in hand: later lists only add
  // garbage-collector timing noise.
  const cold = await timeList();
  const peak = peakRss();
  inHand = [];
  const warm: { wallMs: number; cpuMs: number }[] = [];
  for (let run = 0; run < warmRuns; run += 1) warm.push(await timeList());
  const middle = (values: number[]): number =>
    values.sort((a, b) => a - b)[values.length >> 1] ?? 0;
  await client.close();
  process.send?.({
    coldMs: cold.wallMs,
    coldCpuMs: cold.cpuMs,
    warmMs: middle(warm.map((run) => run.wallMs)),
    warmCpuMs: middle(warm.map((run) => run.cpuMs)),
    baselineRss,
    peakRss: peak,
  });
}

main().catch((error: unknown) => {
  process.send?.({ error: error instanceof Error ? error.message : JSON.stringify(error) });
  process.exitCode = 1;
});
