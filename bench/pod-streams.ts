/**
 * Throughput of exec stdout and port-forward, k against kubectl (client-go), on the same path:
 * client → kube-apiserver of tools/testenv → kwok's kubelet API, all on this machine. Writes
 * bench/results/pod-streams.md.
 *
 *   npx nx run-many -t build && npx tsx bench/pod-streams.ts
 *
 * exec: `cat` of a 64 MiB file (kwok runs it on this machine), stdout read to the end.
 * port-forward: one `curl` GET of 64 MiB from a local HTTP server that kwok's PortForward object
 * targets, timed once the listener is up (k's `portForward`, or `kubectl port-forward` printed
 * its port). kubectl runs as a child process, so its exec figure includes its start (shown
 * apart). Each figure is the median of RUNS runs (default 5), the runs of k and kubectl
 * alternating.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kubeRequest, startControlPlane } from '@k/testenv';

const RUNS = Number(process.env.RUNS ?? 5);
const SIZE = 64 * 1024 * 1024;
const NAMESPACE = 'default';

const plane = await startControlPlane({ nodes: 1, controllerManager: false, scheduler: false });
const scratch = await mkdtemp(join(tmpdir(), 'bench-pod-streams-'));
const payload = Buffer.alloc(SIZE, 'k');
await writeFile(join(scratch, 'big.bin'), payload);
const http = createServer((_request, response) => response.end(payload));
http.listen(0, '127.0.0.1');
await once(http, 'listening');
const httpPort = (http.address() as { port: number }).port;

async function admin(method: string, path: string, body: unknown): Promise<void> {
  const response = await kubeRequest({
    server: plane.server,
    caPem: plane.caPem,
    credentials: plane.users.admin,
    method,
    path,
    body,
  });
  if (response.status >= 300) throw new Error(`${path}: ${response.status} ${response.body}`);
}

await admin('POST', `/apis/kwok.x-k8s.io/v1alpha1/namespaces/${NAMESPACE}/execs`, {
  apiVersion: 'kwok.x-k8s.io/v1alpha1',
  kind: 'Exec',
  metadata: { name: 'bench' },
  spec: { execs: [{ local: { workDir: scratch } }] },
});
await admin('POST', `/apis/kwok.x-k8s.io/v1alpha1/namespaces/${NAMESPACE}/portforwards`, {
  apiVersion: 'kwok.x-k8s.io/v1alpha1',
  kind: 'PortForward',
  metadata: { name: 'bench' },
  spec: { forwards: [{ ports: [8080], target: { port: httpPort, address: '127.0.0.1' } }] },
});
await admin('POST', `/api/v1/namespaces/${NAMESPACE}/pods`, {
  metadata: { name: 'bench' },
  spec: {
    nodeName: plane.nodes[0],
    containers: [{ name: 'main', image: 'registry.invalid/bench:1' }],
  },
});

// Loaded here: other benchmarks load @k/clientset lazily, to time its import.
const { inferClientset } = await import('@k/clientset');
const cs = await inferClientset({ kubeconfig: plane.kubeconfigPath, throttle: 'off' });
const pods = cs.coreV1.pods(NAMESPACE);

async function kExec(): Promise<number> {
  const session = await pods.exec('bench', { command: ['cat', 'big.bin'], stderr: false });
  let bytes = 0;
  for await (const chunk of session.stdout!) bytes += (chunk as Buffer).length;
  if ((await session.result).exitCode !== 0 || bytes !== SIZE) throw new Error(`exec: ${bytes}`);
  return bytes;
}

function kubectl(args: readonly string[]): ReturnType<typeof spawn> {
  return spawn('kubectl', ['--kubeconfig', plane.kubeconfigPath, '-n', NAMESPACE, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function kubectlExec(): Promise<number> {
  const child = kubectl(['exec', 'bench', '--', 'cat', 'big.bin']);
  let bytes = 0;
  child.stdout!.on('data', (chunk: Buffer) => (bytes += chunk.length));
  const [code] = (await once(child, 'close')) as [number];
  if (code !== 0 || bytes !== SIZE) throw new Error(`kubectl exec: ${code} ${bytes}`);
  return bytes;
}

/** fetchAll downloads through a forwarded port with curl (its own process, for k and kubectl alike) and returns the milliseconds. */
async function fetchAll(port: number): Promise<number> {
  const started = performance.now();
  const child = spawn('curl', [
    '-s',
    '-o',
    '/dev/null',
    '-w',
    '%{size_download}',
    `http://127.0.0.1:${port}/`,
  ]);
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  await once(child, 'close');
  if (Number(text) !== SIZE) throw new Error(`curl: ${text}`);
  return performance.now() - started;
}

async function kPortForward(): Promise<number> {
  const forwarder = await pods.portForward('bench', [{ local: 0, remote: 8080 }]);
  try {
    return await fetchAll(forwarder.ports[0].local);
  } finally {
    await forwarder.close();
  }
}

async function kubectlPortForward(): Promise<number> {
  const child = kubectl(['port-forward', 'pod/bench', ':8080']);
  let text = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(text);
      if (match) resolve(Number(match[1]));
    });
    child.once('close', (code) => reject(new Error(`kubectl port-forward exited ${code}`)));
  });
  try {
    return await fetchAll(port);
  } finally {
    child.kill();
  }
}

async function startOf(args: readonly string[]): Promise<number> {
  const started = performance.now();
  const child = kubectl(args);
  await once(child, 'close');
  return performance.now() - started;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

const mbPerSecond = (ms: number): string => (SIZE / 1024 / 1024 / (ms / 1000)).toFixed(0);

try {
  // kwok picks the objects up within about a second; warm both paths up.
  for (let attempt = 0; ; attempt += 1) {
    try {
      await kExec();
      await kPortForward();
      break;
    } catch (error) {
      if (attempt > 30) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  await kubectlExec();
  await kubectlPortForward();
  const times = {
    kExec: [] as number[],
    kubectlExec: [] as number[],
    kForward: [] as number[],
    kubectlForward: [] as number[],
  };
  for (let run = 0; run < RUNS; run += 1) {
    times.kExec.push(await timed(kExec));
    times.kubectlExec.push(await timed(kubectlExec));
    times.kForward.push(await kPortForward());
    times.kubectlForward.push(await kubectlPortForward());
  }
  const kubectlStart = median(
    await Promise.all([0, 1, 2].map(() => startOf(['version', '--client']))),
  );
  const rows = [
    ['exec stdout (`cat` of 64 MiB)', median(times.kExec), median(times.kubectlExec)],
    [
      'exec stdout, kubectl minus its start',
      median(times.kExec),
      median(times.kubectlExec) - kubectlStart,
    ],
    [
      'port-forward (curl GET of 64 MiB, listener up)',
      median(times.kForward),
      median(times.kubectlForward),
    ],
  ] as const;
  const lines = [
    '# Pod streams: k against kubectl',
    '',
    `Written by \`bench/pod-streams.ts\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores` +
      ` (${cpus()[0]?.model ?? 'unknown'}), load ${loadavg()[0]?.toFixed(2)}, Node ${process.version}, median of ${RUNS} runs.`,
    'Path: client → kube-apiserver (tools/testenv) → kwok kubelet API, all on loopback. The exec',
    `figure of kubectl includes its process start (\`kubectl version --client\`: ${kubectlStart.toFixed(0)} ms);`,
    'port-forward times one `curl` download once the listener is up, for both.',
    '',
    '| what | k | kubectl | k MB/s | kubectl MB/s |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...rows.map(
      ([what, k, kube]) =>
        `| ${what} | ${k.toFixed(0)} ms | ${kube.toFixed(0)} ms | ${mbPerSecond(k)} | ${mbPerSecond(kube)} |`,
    ),
    '',
  ];
  const output = fileURLToPath(new URL('results/pod-streams.md', import.meta.url));
  await writeFile(output, lines.join('\n'));
  console.log(lines.join('\n'));
} finally {
  await cs.close();
  http.close();
  await plane.stop();
  await rm(scratch, { recursive: true, force: true });
}
