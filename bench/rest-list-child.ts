/**
 * One client's LIST of the fake server's PodList, in a process of its own so its memory is its
 * own (bench/rest.bench.ts forks one per client and transport). It loads only that client, lists
 * once cold and BENCH_LIST_WARM times warm, and reports the times (request start to decoded
 * objects in hand), the resident set before the first list and the peak resident set of the
 * cold list (read while its objects are still in hand).
 *
 *   argv: <client kind> <origin> ; env K_BENCH_CA: the CA PEM for https origins
 */
import { makeClient, type ClientKind } from './rest-clients.js';

async function main(): Promise<void> {
  const [kind, origin] = process.argv.slice(2) as [ClientKind, string];
  const warmRuns = Number(process.env.BENCH_LIST_WARM ?? 5);
  const caPem = process.env.K_BENCH_CA;
  const client = await makeClient(kind, { origin, ...(caPem ? { caPem } : {}) });
  // Connect (and handshake) first, so the cold list measures decoding, not TLS set-up.
  await client.getPod();
  const baselineRss = process.memoryUsage.rss();
  let inHand: unknown[] = [];
  const timeList = async (): Promise<number> => {
    const started = performance.now();
    inHand = await client.listPods();
    const elapsed = performance.now() - started;
    if (inHand.length !== Number(process.env.BENCH_LIST_PODS ?? 5000)) {
      throw new Error(`listed ${inHand.length} pods`);
    }
    return elapsed;
  };
  // Peak RSS is read right after the cold list, its objects still in hand: later lists only add
  // garbage-collector timing noise.
  const coldMs = await timeList();
  const peakRss = process.resourceUsage().maxRSS * 1024;
  inHand = [];
  const warm: number[] = [];
  for (let run = 0; run < warmRuns; run += 1) warm.push(await timeList());
  warm.sort((a, b) => a - b);
  await client.close();
  process.send?.({ coldMs, warmMs: warm[warm.length >> 1] ?? coldMs, baselineRss, peakRss });
}

main().catch((error: unknown) => {
  process.send?.({ error: error instanceof Error ? error.message : JSON.stringify(error) });
  process.exitCode = 1;
});
