/**
 * One client's LIST of 5,000 pods for bench/clientset-import.bench.ts, in a process of its own so
 * its memory is its own. argv: `<raw|typed> <origin>`. It runs as a plain node program
 * (bench/plain-node-program.ts), so the typed client is the built dist of @k/clientset and
 * @k/rest, as applications load it.
 *
 * - raw: `undici.request` on an `Agent`, then `JSON.parse(await body.text())` — the floor;
 * - typed: `createClientset(config).coreV1.pods('default').list()` — throttle
 *   off, through @k/transport and @k/rest, as an application sends.
 *
 * It connects first (GET /version), lists once cold, then once for memory — the RSS before it
 * (after a full GC, `--expose-gc`) and its peak RSS (Linux's VmHWM, reset just before it, read
 * with the objects in hand) — and BENCH_LIST_WARM times warm; times run from the request's start
 * to the decoded objects in hand.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const PATH = '/api/v1/namespaces/default/pods';

interface Lister {
  /** connect opens the connection with a small request. */
  connect(): Promise<unknown>;
  list(): Promise<unknown[]>;
  close(): Promise<void>;
}

async function rawLister(origin: string): Promise<Lister> {
  const { Agent, request } = await import('undici');
  const dispatcher = new Agent();
  return {
    connect: async () => (await request(`${origin}/version`, { dispatcher })).body.json(),
    async list() {
      const response = await request(`${origin}${PATH}`, {
        dispatcher,
        headers: { accept: 'application/json' },
      });
      return (JSON.parse(await response.body.text()) as { items: unknown[] }).items;
    },
    close: () => dispatcher.close(),
  };
}

async function typedLister(origin: string): Promise<Lister> {
  const { createClientset } = await import('@k/clientset');
  const clientset = createClientset(
    {
      server: origin,
      contextName: 'bench',
      clusterName: 'bench',
      userName: 'bench',
      namespace: 'default',
      namespaceExplicit: false,
      tls: { insecure: false },
      auth: { kind: 'none' },
      disableCompression: true,
      source: 'kubeconfig',
    },
    { throttle: 'off' },
  );
  const pods = clientset.coreV1.pods('default');
  return {
    connect: () => clientset.discovery.serverVersion(),
    async list() {
      return (await pods.list()).items;
    },
    close: () => clientset.close(),
  };
}

function resetPeakRss(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // Not Linux: the peak is the process's lifetime maximum.
  }
}

function peakRss(): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match?.[1]) return Number(match[1]) * 1024;
  } catch {
    // Fall through.
  }
  return process.resourceUsage().maxRSS * 1024;
}

async function main(): Promise<void> {
  const [kind, origin] = process.argv.slice(2) as ['raw' | 'typed', string];
  const expected = Number(process.env.BENCH_LIST_PODS ?? 5000);
  const warmRuns = Number(process.env.BENCH_LIST_WARM ?? 5);
  const lister = kind === 'raw' ? await rawLister(origin) : await typedLister(origin);
  await lister.connect();
  let inHand: unknown[] = [];
  const timed = async (): Promise<number> => {
    const started = performance.now();
    inHand = await lister.list();
    const elapsed = performance.now() - started;
    if (inHand.length !== expected) throw new Error(`listed ${inHand.length} pods`);
    return elapsed;
  };
  const coldMs = await timed();
  // Peak RSS is taken on the second list: the first also pays one-time costs (code compiled on
  // first use, heap sizing) that depend on how much code the process loaded before, not on the list.
  inHand = [];
  (globalThis as { gc?: () => void }).gc?.();
  resetPeakRss();
  const baselineRss = process.memoryUsage.rss();
  await timed();
  const peak = peakRss();
  inHand = [];
  const warm: number[] = [];
  for (let run = 0; run < warmRuns; run++) warm.push(await timed());
  await lister.close();
  warm.sort((a, b) => a - b);
  process.send?.({ coldMs, warmMs: warm[warm.length >> 1], baselineRss, peakRss: peak });
}

main().catch((error: unknown) => {
  process.send?.({ error: error instanceof Error ? error.message : JSON.stringify(error) });
  process.exitCode = 1;
});
