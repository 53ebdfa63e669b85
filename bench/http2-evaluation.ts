/**
 * Evaluates undici's HTTP/2 (`allowH2`) against the real kube-apiserver of tools/testenv, for
 * ADR 0012. Not a speed benchmark: it records connections, hangs and failures, and writes
 * bench/results/http2.md.
 *
 *   npx tsx --conditions=@k/source bench/http2-evaluation.ts
 *
 * Each scenario uses its own undici `Pool` with the admin client certificate, opens 10 watches of
 * ConfigMaps, then sends 50 concurrent GETs, 10 sequential POSTs (each bounded by 10 s: a POST
 * that does not finish by then is counted as hung), 500 sequential and 32 × 30 concurrent GETs.
 * "connections" are this process's established TCP connections to the API server (socket
 * inodes of /proc/self/fd matched in /proc/net/tcp{,6}), counted with the watches and requests
 * in flight. The GOAWAY scenarios start kube-apiserver with `--goaway-chance`, which a production
 * API server behind a load balancer uses to spread clients over replicas: it closes an HTTP/2
 * connection, after a request, with that probability. `ONLY=<index>` runs one scenario;
 * `BENCH_REPORT` names the report file (default bench/results/http2.md). The same scenarios run
 * on undici 7 and 8: undici 8 multiplexes h2 up to the server's concurrent streams whatever
 * `pipelining` says and fixed the write that waited behind other streams, so the GOAWAY scenarios
 * include h2 with POSTs as they are (ADR 0023). Its GOAWAY handling changed but is not fixed
 * everywhere: under `--goaway-chance` a POST still hung with its defaults, and with POSTs marked
 * idempotent watches were cut and requests failed (bench/results/http2.md).
 */
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Pool, buildConnector } from 'undici';
import { startControlPlane, type ControlPlane } from '@k/testenv';

interface Scenario {
  name: string;
  http2: boolean;
  /** pipelining is undici's per-connection request limit (1 is its default). */
  pipelining?: number;
  /** idempotentWrites marks POSTs idempotent, the only way undici 7 multiplexes them on h2. */
  idempotentWrites?: boolean;
  goawayChance?: number;
}

interface Outcome {
  connections: number;
  postsHung: number;
  failures: number;
  failureCodes: string[];
  watchesEnded: number;
  sequentialGetMs: number;
  concurrentGetsPerSecond: number;
}

const ONLY = process.env.ONLY ? Number(process.env.ONLY) : undefined;
const SCENARIOS_ALL: Scenario[] = [
  { name: 'HTTP/1.1 (what k does)', http2: false },
  { name: 'h2, undici defaults (pipelining 1)', http2: true },
  { name: 'h2, pipelining 100', http2: true, pipelining: 100 },
  {
    name: 'h2, pipelining 100, POSTs marked idempotent',
    http2: true,
    pipelining: 100,
    idempotentWrites: true,
  },
  { name: 'HTTP/1.1, --goaway-chance=0.02', http2: false, goawayChance: 0.02 },
  { name: 'h2, undici defaults, --goaway-chance=0.02', http2: true, goawayChance: 0.02 },
  {
    name: 'h2, pipelining 100, --goaway-chance=0.02',
    http2: true,
    pipelining: 100,
    goawayChance: 0.02,
  },
  {
    name: 'h2, pipelining 100, POSTs marked idempotent, --goaway-chance=0.02',
    http2: true,
    pipelining: 100,
    idempotentWrites: true,
    goawayChance: 0.02,
  },
];
const SCENARIOS = ONLY === undefined ? SCENARIOS_ALL : SCENARIOS_ALL.slice(ONLY, ONLY + 1);

/** failureCode names a failure by its code (undici's `UND_ERR_*`, Node's `ERR_*`), else its name. */
function failureCode(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : typeof error;
}

function connectionsTo(port: number): number {
  const inodes = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (match?.[1]) inodes.add(match[1]);
    } catch {
      // The descriptor closed while we looked.
    }
  }
  const portHex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  let count = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/);
      const [remote, state, inode] = [columns[2], columns[3], columns[9]];
      if (remote?.endsWith(portHex) && state === '01' && inode && inodes.has(inode)) count += 1;
    }
  }
  return count;
}

/** rethrow is the handler of uncaught errors outside a scenario: they end the evaluation. */
const rethrow = (error: unknown): never => {
  throw error;
};

/**
 * onUncaught is the running scenario's recorder of errors nobody could catch: undici 7 throws
 * h2's GOAWAY as an uncaught exception while a POST waits behind watches, which would end
 * the evaluation instead of showing in its row. Outside a scenario it is {@link rethrow}: an
 * error after a scenario's end is not swallowed by its finished counters.
 */
let onUncaught: (error: unknown) => void = rethrow;
process.on('uncaughtException', (error) => onUncaught(error));

async function run(plane: ControlPlane, scenario: Scenario): Promise<Outcome> {
  const port = Number(new URL(plane.server).port);
  const admin = plane.users.admin;
  const pool = new Pool(plane.server, {
    connect: buildConnector({
      ca: plane.caPem,
      cert: admin.certPem,
      key: admin.keyPem,
      allowH2: scenario.http2,
    }),
    allowH2: scenario.http2,
    bodyTimeout: 0,
    ...(scenario.pipelining ? { pipelining: scenario.pipelining } : {}),
  });
  const failureCodes = new Set<string>();
  let failures = 0;
  onUncaught = (error) => {
    failures += 1;
    failureCodes.add(`uncaught ${failureCode(error)}`);
  };
  try {
    const get = async (): Promise<void> => {
      try {
        const response = await pool.request({ method: 'GET', path: '/api/v1/namespaces/default' });
        await response.body.json();
      } catch (error) {
        failures += 1;
        failureCodes.add(failureCode(error));
      }
    };
    const stop = new AbortController();
    let watchesEnded = 0;
    const watches: Promise<void>[] = [];
    for (let index = 0; index < 10; index += 1) {
      const response = await pool.request({
        method: 'GET',
        path: '/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=600',
        signal: stop.signal,
      });
      watches.push(
        (async () => {
          try {
            for await (const chunk of response.body) void chunk;
          } catch {
            // Aborted at the end, or cut by the server.
          }
          if (!stop.signal.aborted) watchesEnded += 1;
        })(),
      );
    }
    await Promise.all(Array.from({ length: 50 }, get));
    const connections = connectionsTo(port);
    let postsHung = 0;
    for (let index = 0; index < 10 && postsHung === 0; index += 1) {
      // The signal aborts the POST; the race notices when undici does not honour it either.
      const attempt = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      const post = pool
        .request({
          method: 'POST',
          path: '/api/v1/namespaces/default/configmaps',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ metadata: { generateName: 'http2-evaluation-' } }),
          signal: attempt.signal,
          ...(scenario.idempotentWrites ? { idempotent: true } : {}),
        })
        .then(async (response) => {
          await response.body.json();
          return 'done' as const;
        });
      const outcome = await Promise.race([
        post.catch((error: unknown) => error),
        new Promise<'hung'>((resolve) => {
          timer = setTimeout(() => {
            attempt.abort();
            resolve('hung');
          }, 10_000);
        }),
      ]);
      clearTimeout(timer);
      if (outcome === 'hung') {
        postsHung += 1;
        post.catch(() => undefined);
      } else if (outcome !== 'done') {
        failures += 1;
        failureCodes.add(failureCode(outcome));
      }
    }
    const sequentialStart = performance.now();
    for (let index = 0; index < 500; index += 1) await get();
    const sequentialGetMs = (performance.now() - sequentialStart) / 500;
    const concurrentStart = performance.now();
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        for (let index = 0; index < 30; index += 1) await get();
      }),
    );
    const concurrentGetsPerSecond = 960 / ((performance.now() - concurrentStart) / 1000);
    stop.abort();
    // A hung POST is not aborted by undici: destroying the pool ends it and the watches.
    await pool.destroy();
    await Promise.all(watches);
    return {
      connections,
      postsHung,
      failures,
      failureCodes: [...failureCodes],
      watchesEnded,
      sequentialGetMs,
      concurrentGetsPerSecond,
    };
  } finally {
    onUncaught = rethrow;
  }
}

async function main(): Promise<void> {
  const startLoad = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
  const rows: string[] = [];
  for (const goawayChance of [undefined, 0.02]) {
    const plane = await startControlPlane({
      controllerManager: false,
      extraApiServerFlags: goawayChance ? [`--goaway-chance=${goawayChance}`] : [],
    });
    try {
      for (const scenario of SCENARIOS.filter((each) => each.goawayChance === goawayChance)) {
        const outcome = await run(plane, scenario);
        process.stderr.write(`${scenario.name}: ${JSON.stringify(outcome)}\n`);
        rows.push(
          `| ${scenario.name} | ${outcome.connections} | ${outcome.postsHung > 0 ? 'yes (10 s)' : 'no'} | ${outcome.watchesEnded} | ${outcome.failures}${outcome.failureCodes.length ? ` (${outcome.failureCodes.join(', ')})` : ''} | ${outcome.sequentialGetMs.toFixed(2)} | ${outcome.concurrentGetsPerSecond.toFixed(0)} |`,
        );
      }
    } finally {
      await plane.stop();
    }
  }
  const { version } = JSON.parse(
    readFileSync(fileURLToPath(import.meta.resolve('undici/package.json')), 'utf8'),
  ) as { version: string };
  const report = [
    '# HTTP/2 evaluation: undici `allowH2` against the real kube-apiserver',
    '',
    'Generated by `npx tsx --conditions=@k/source bench/http2-evaluation.ts` (see the file header); the decisions are ADR 0012 and ADR 0023.',
    '',
    `undici ${version}, Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}, load average ${startLoad} at the start; kube-apiserver of tools/testenv (TLS, admin client certificate). 10 watches open throughout; 50 concurrent GETs, 10 POSTs, 500 sequential GETs, 32 × 30 concurrent GETs.`,
    '',
    '| scenario | connections (10 watches + 50 GETs in flight) | a POST hangs behind the watches | watches cut by the server | failed requests (of 1,520) | sequential GET ms | concurrent GETs/s |',
    '| --- | ---: | --- | ---: | --- | ---: | ---: |',
    ...rows,
    '',
  ].join('\n');
  writeFileSync(
    process.env.BENCH_REPORT ?? fileURLToPath(new URL('./results/http2.md', import.meta.url)),
    report,
  );
  process.stdout.write(report);
}

await main();
