/**
 * TLS GET throughput: @k/transport vs raw undici vs @kubernetes/client-node 1.4.0, in one run.
 *
 *   npx tsx --conditions=@k/source bench/transport-get.bench.ts
 *
 * A local node:https server (a child process, so it does not share the client's event loop)
 * answers `GET /api/v1/namespaces/default` with a small Namespace. Each client runs the same
 * sequential and 32-concurrent workloads, and a sequential one where the server closes every
 * connection after its response (`Connection: close`), so each request pays a new TLS handshake
 * with the client certificate every client presents; the server counts TLS handshakes
 * (`secureConnection`) so connection reuse shows as connections opened per request. Rounds are interleaved and the
 * best round of each client is reported (other work on a shared machine only slows rounds
 * down). Writes bench/results/transport-get.md.
 *
 * Environment: BENCH_REQUESTS (per workload and round, default 2000), BENCH_ROUNDS (default 5),
 * BENCH_CONCURRENCY (default 32), BENCH_SKIP_CLIENT_NODE=1 (quick raw-vs-k comparisons; does not
 * write the results file).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { ResolvedConfig } from '@k/config';
import { createTestCertificates } from '@k/test-utils';
import { createTransport } from '@k/transport';
import * as clientNode from '@kubernetes/client-node';
import { Agent, request } from 'undici';

const NAMESPACE = JSON.stringify({
  kind: 'Namespace',
  apiVersion: 'v1',
  metadata: {
    name: 'default',
    uid: '8eb17858-2b1b-4a7c-9d3c-1f0f8a9c2e11',
    resourceVersion: '42',
    creationTimestamp: '2026-01-01T00:00:00Z',
    labels: { 'kubernetes.io/metadata.name': 'default' },
    managedFields: [],
  },
  spec: { finalizers: ['kubernetes'] },
  status: { phase: 'Active' },
});
const PATH = '/api/v1/namespaces/default';
/** CLOSING_PATH is answered with `Connection: close`: every request on a new connection. */
const CLOSING_PATH = '/api/v1/namespaces/default?close=true';
const TOKEN = 'bench-token';

interface Pki {
  ca: string;
  cert: string;
  key: string;
  clientCert: string;
  clientKey: string;
}

interface ServerMessage {
  port?: number;
  secureConnections?: number;
}

// ---------------------------------------------------------------------------------------------
// The server (child process).
// ---------------------------------------------------------------------------------------------

function serve(pki: Pki): void {
  let secureConnections = 0;
  const server = createServer(
    {
      cert: pki.cert,
      key: pki.key,
      ca: pki.ca,
      requestCert: true,
      rejectUnauthorized: true,
      keepAliveTimeout: 90_000,
    },
    (req, res) => {
      if (req.headers.authorization !== `Bearer ${TOKEN}`) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end('{"kind":"Status","code":401}');
        return;
      }
      res.writeHead(200, {
        'content-type': 'application/json',
        ...(req.url === CLOSING_PATH ? { connection: 'close' } : {}),
      });
      res.end(NAMESPACE);
    },
  );
  server.on('secureConnection', () => (secureConnections += 1));
  server.listen(0, '127.0.0.1', () => {
    process.send?.({ port: (server.address() as { port: number }).port });
  });
  process.on('message', (message) => {
    if (message === 'count') process.send?.({ secureConnections });
    if (message === 'exit') process.exit(0);
  });
}

// ---------------------------------------------------------------------------------------------
// The clients.
// ---------------------------------------------------------------------------------------------

type Get = () => Promise<void>;

interface Client {
  name: string;
  get: (path: string) => Promise<void>;
  close: () => Promise<void>;
}

function rawUndici(origin: string, pki: Pki): Client {
  const agent = new Agent({ connect: { ca: pki.ca, cert: pki.clientCert, key: pki.clientKey } });
  return {
    name: 'raw undici (request + Agent)',
    get: async (path) => {
      const response = await request(`${origin}${path}`, {
        dispatcher: agent,
        headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' },
      });
      if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`);
      JSON.parse(await response.body.text());
    },
    close: () => agent.close(),
  };
}

function kTransport(origin: string, pki: Pki): Client {
  const config: ResolvedConfig = {
    server: origin,
    contextName: 'bench',
    clusterName: 'bench',
    userName: 'bench',
    namespace: 'default',
    namespaceExplicit: false,
    tls: {
      caData: new TextEncoder().encode(pki.ca),
      certData: new TextEncoder().encode(pki.clientCert),
      keyData: new TextEncoder().encode(pki.clientKey),
      insecure: false,
    },
    auth: { kind: 'token', token: TOKEN },
    disableCompression: false,
    source: 'kubeconfig',
  };
  const transport = createTransport(config);
  return {
    name: '@k/transport',
    get: async (path) => {
      const response = await request(`${origin}${path}`, {
        dispatcher: transport,
        headers: { accept: 'application/json' },
      });
      if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`);
      JSON.parse(await response.body.text());
    },
    close: () => transport.close(),
  };
}

function kubernetesClientNode(origin: string, pki: Pki): Client {
  const kubeConfig = new clientNode.KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'bench', server: origin, caData: Buffer.from(pki.ca).toString('base64') }],
    users: [
      {
        name: 'bench',
        token: TOKEN,
        certData: Buffer.from(pki.clientCert).toString('base64'),
        keyData: Buffer.from(pki.clientKey).toString('base64'),
      },
    ],
    contexts: [{ name: 'bench', cluster: 'bench', user: 'bench' }],
    currentContext: 'bench',
  });
  const core = kubeConfig.makeApiClient(clientNode.CoreV1Api);
  return {
    name: '@kubernetes/client-node 1.4.0 (CoreV1Api.readNamespace)',
    // The generated API has no way to ask for `?close=true`; client-node opens a connection per
    // request anyway (see its TCP connections column).
    get: async () => {
      const namespace = await core.readNamespace({ name: 'default' });
      if (namespace.metadata?.name !== 'default') throw new Error('unexpected body');
    },
    close: () => Promise.resolve(),
  };
}

// ---------------------------------------------------------------------------------------------
// Measuring.
// ---------------------------------------------------------------------------------------------

interface Sample {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  connections: number;
  connectionsPerRequest: number;
  /** cpuMicrosPerRequest is the client process's CPU time (user + system) per request. */
  cpuMicrosPerRequest: number;
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

async function run(
  get: Get,
  requests: number,
  concurrency: number,
  countConnections: () => Promise<number>,
): Promise<Sample> {
  const latencies: number[] = [];
  const before = await countConnections();
  const cpu = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < requests) {
      next += 1;
      const start = performance.now();
      await get();
      latencies.push(performance.now() - start);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const connections = (await countConnections()) - before;
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: (requests / elapsed) * 1000,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    connections,
    connectionsPerRequest: connections / requests,
    cpuMicrosPerRequest: (used.user + used.system) / requests,
  };
}

/**
 * best is the round with the highest throughput: on a shared machine other work only ever slows
 * a round down, so the fastest round is the least disturbed one.
 */
function best(samples: readonly Sample[]): Sample {
  const sorted = [...samples].sort((a, b) => b.requestsPerSecond - a.requestsPerSecond);
  const first = sorted[0];
  if (!first) throw new Error('no samples');
  return first;
}

function createPki(): Pki {
  const certificates = createTestCertificates(['IP:127.0.0.1', 'DNS:localhost']);
  return {
    ca: certificates.caPem,
    cert: certificates.serverCertPem,
    key: certificates.serverKeyPem,
    clientCert: certificates.clientCertPem,
    clientKey: certificates.clientKeyPem,
  };
}

function ask(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (message: ServerMessage) => {
      if (message.secureConnections === undefined) return;
      child.off('message', onMessage);
      resolve(message.secureConnections);
    };
    child.on('message', onMessage);
    child.send('count');
  });
}

function format(value: number, digits = 0): string {
  return value.toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

async function main(): Promise<void> {
  const requests = Number(process.env.BENCH_REQUESTS ?? 2000);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
  const loadAtStart = loadavg()[0]?.toFixed(1) ?? '?';
  const pki = createPki();
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], {
    env: { ...process.env, K_BENCH_PKI: JSON.stringify(pki) },
  });
  const [ready] = (await once(child, 'message')) as [ServerMessage];
  const origin = `https://127.0.0.1:${ready.port}`;
  const countConnections = () => ask(child);

  const skipClientNode = process.env.BENCH_SKIP_CLIENT_NODE === '1';
  const makers = skipClientNode
    ? [rawUndici, kTransport]
    : [rawUndici, kTransport, kubernetesClientNode];
  const workloads = [
    { name: 'sequential', concurrency: 1, path: PATH },
    { name: `${concurrency} concurrent`, concurrency, path: PATH },
    { name: 'sequential, a new connection per request', concurrency: 1, path: CLOSING_PATH },
  ];
  const results = new Map<string, Sample[]>();
  const names: string[] = [];
  for (let round = 0; round < rounds; round += 1) {
    // Rotate the order each round, so no client always runs first (cold) or last.
    const shift = round % makers.length;
    const order = [...makers.slice(shift), ...makers.slice(0, shift)];
    for (const make of order) {
      const client = make(origin, pki);
      if (!names.includes(client.name)) names.push(client.name);
      // Warm up: JIT, first connections and session caches.
      await run(() => client.get(PATH), 200, concurrency, countConnections);
      for (const workload of workloads) {
        const get = () => client.get(workload.path);
        const sample = await run(get, requests, workload.concurrency, countConnections);
        const key = `${client.name}\u0000${workload.name}`;
        results.set(key, [...(results.get(key) ?? []), sample]);
        process.stderr.write(
          `round ${round + 1}/${rounds} ${client.name} ${workload.name}: ${format(sample.requestsPerSecond)} req/s\n`,
        );
      }
      await client.close();
    }
  }
  child.send('exit');

  const lines: string[] = [];
  for (const workload of workloads) {
    const baseline = best(results.get(`${names[0]}\u0000${workload.name}`) ?? []);
    lines.push(`### TLS GET, ${workload.name}`, '');
    lines.push(
      '| client | req/s | vs raw undici | p50 ms | p99 ms | client CPU µs / request | TCP connections opened (per request) |',
    );
    lines.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const name of names) {
      const sample = best(results.get(`${name}\u0000${workload.name}`) ?? []);
      lines.push(
        `| ${name} | ${format(sample.requestsPerSecond)} | ${format(sample.requestsPerSecond / baseline.requestsPerSecond, 2)}x | ${format(sample.p50Ms, 3)} | ${format(sample.p99Ms, 3)} | ${format(sample.cpuMicrosPerRequest, 1)} | ${sample.connections} (${format(sample.connectionsPerRequest, 4)}) |`,
      );
    }
    lines.push('');
  }
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const loadAtEnd = loadavg()[0]?.toFixed(1) ?? '?';
  const report = [
    '# Benchmark: TLS GET through @k/transport, raw undici and @kubernetes/client-node',
    '',
    'Generated by `npx tsx --conditions=@k/source bench/transport-get.bench.ts`.',
    '',
    `Node ${process.version}, ${cpus().length} × ${cpu}; run on ${new Date().toISOString().slice(0, 10)}.`,
    'Server: node:https in a child process on loopback, EC P-256 certificates; every client presents',
    'a client certificate (and a bearer token); the last workload closes each connection after its response,',
    `a ~${NAMESPACE.length}-byte JSON body. ${requests} requests per workload and round, best of ${rounds}`,
    'interleaved rounds (client order rotated every round, after a 200-request warm-up per client).',
    'Every client parses the JSON body. Connections = TLS handshakes the server saw during the',
    'measured workload (the warm-up fills the keep-alive pools first); client CPU is',
    '`process.cpuUsage()` of the client process, the least load-sensitive figure on a shared machine.',
    `Load average ${loadAtStart} at the start, ${loadAtEnd} at the end (the machine is shared;`,
    'compare figures within one run only).',
    '',
    ...lines,
  ].join('\n');
  process.stdout.write(`${report}\n`);
  if (!skipClientNode)
    writeFileSync(new URL('./results/transport-get.md', import.meta.url), report);
}

if (process.argv.includes('--serve')) {
  serve(JSON.parse(process.env.K_BENCH_PKI ?? '{}') as Pki);
} else {
  await main();
}
