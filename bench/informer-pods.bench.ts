/**
 * What an informer over many Pods costs: 10,000 Pods in one namespace (shaped like a Deployment's:
 * two containers with env, resources, probes, mounts and a projected token
 * volume, owner reference, labels, annotations, and the managedFields of their create) on a real
 * kube-apiserver from tools/testenv with no nodes, scheduler or controller manager (the Pods stay
 * Pending and nothing else writes to them). Each informer runs in a fresh process:
 *
 * - @k/runtime `Informer` as configured by default (streaming list, managedFields dropped), with
 *   compression off (`disableCompression`: no gzip from the server), with a paged LIST
 *   (`watchList: false`), keeping managedFields (`transform: false`), and metadata-only
 *   (`asMetadata()`: PartialObjectMetadata);
 * - @kubernetes/client-node 1.4.0 `makeInformer` with `listNamespacedPod`;
 * - raw undici + `JSON.parse` of one LIST into a Map, then a watch decoded line by line, as is
 *   and with `delete metadata.managedFields` on every object;
 * - the floor: raw undici receiving the same streaming list, uncompressed, with nothing parsed
 *   (the raw rows' Agent says `allowH2: false`: HTTP/1.1, as k speaks);
 * - client-go v0.37.2 (bench/go/informer, built here and cached): the typed Pod informer by
 *   default (streaming list, protobuf as its typed clients prefer), with a transform dropping
 *   managedFields, and metadata-only;
 * - @k/runtime with `protobuf: false` (JSON), the encoding all the raw rows read.
 *
 * Figures: time from start to synced, the CPU time of kube-apiserver and of the program until
 * then (the server's JSON encoding was most of a JSON informer's wait), the peak RSS, RSS and heap after a full GC once synced,
 * heap per 1,000 cached objects (heap after GC once synced minus heap after GC before starting),
 * and the CPU time (user + system, all threads) per update event: once synced, this process
 * patches a label of BENCH_UPDATES (default 2,000) Pods twice over, and the child divides the CPU
 * time it spent on each batch, until the last of its updates reached the handler, by their count.
 * The first batch (BENCH_WARMUP_UPDATES, default BENCH_UPDATES; 0 for none) is what a process
 * pays right after its sync, JIT compilation of the update path included in V8; the second is
 * the steady state a long-running informer pays. Medians of BENCH_ROUNDS (default 3) fresh
 * processes per variant, rounds interleaved.
 *
 *   npx nx run-many -t build && npx tsx bench/informer-pods.bench.ts
 *
 * Writes bench/results/informer-pods.md. BENCH_PODS changes the count; BENCH_VARIANTS (a
 * case-insensitive regular expression) runs only the variants whose names match and prints their
 * table without writing the file.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { cpus, homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Pod } from '@k/clientset/core/v1';
import { inParallel } from '@k/test-utils';
import { format, loadAverage } from './figures.js';
import {
  CLIENT_NODE_SETUP,
  K_SETUP,
  clientNodeInformerRun,
  kInformerRun,
  listShape,
  runInterleaved,
  withBenchCluster,
  writeNodePrograms,
  type InformerProgram,
  type NodeInformerProgram,
} from './informer-programs.js';

const here = (name: string): string => fileURLToPath(new URL(name, import.meta.url));

const PODS = 'cs.coreV1.pods(namespace)';

const RAW_SETUP = `import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
const connection = JSON.parse(readFileSync(process.env.BENCH_RAW_CONNECTION, 'utf8'));
// HTTP/1.1 as k's rows speak: undici 8 offers h2, which kube-apiserver takes.
const dispatcher = new Agent({ allowH2: false, connect: { ca: connection.caPem, cert: connection.certPem, key: connection.keyPem } });
const podsUrl = connection.server + '/api/v1/namespaces/' + process.env.BENCH_NAMESPACE + '/pods';`;

/** rawRun lists into a Map, opens a watch from the list, and decodes it line by line. */
function rawRun(deleteManagedFields: boolean): string {
  const drop = deleteManagedFields ? 'delete pod.metadata.managedFields; ' : '';
  return `const pods = new Map();
const listed = await request(podsUrl, { dispatcher });
if (listed.statusCode !== 200) throw new Error('list: ' + listed.statusCode + ' ' + await listed.body.text());
const list = JSON.parse(await listed.body.text());
for (const pod of list.items) { ${drop}pods.set(pod.metadata.name, pod); }
const watched = await request(podsUrl + '?watch=true&allowWatchBookmarks=true&resourceVersion=' + list.metadata.resourceVersion, { dispatcher });
if (watched.statusCode !== 200) throw new Error('watch: ' + watched.statusCode);
globalThis.report(pods.size);
if (expectedUpdates > 0) {
  watched.body.setEncoding('utf8');
  let pending = '';
  for await (const chunk of watched.body) {
    pending += chunk;
    let newline;
    while ((newline = pending.indexOf('\\n')) !== -1) {
      const event = JSON.parse(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      if (event.type !== 'MODIFIED') continue;
      const pod = event.object;
      ${drop}pods.set(pod.metadata.name, pod);
      globalThis.updated();
    }
    if (updates >= expectedUpdates) break;
  }
  // A watch the server ended early fails here, saying so, instead of reporting nothing.
  if (updates < expectedUpdates) throw new Error('the watch ended after ' + updates + ' of ' + expectedUpdates + ' updates');
}
watched.body.destroy();
await dispatcher.close();`;
}

/**
 * RECEIVE_ONLY_RUN is the floor of a streaming list: the same watch (sendInitialEvents, no
 * compression) read to its end bookmark and then to the update events, each line told apart by
 * its first bytes and nothing parsed. What it takes is what the server takes to send.
 */
const RECEIVE_ONLY_RUN = `const watchUrl = podsUrl + '?watch=true&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=600';
const watched = await request(watchUrl, { dispatcher, headers: { 'accept-encoding': 'identity' } });
if (watched.statusCode !== 200) throw new Error('watch: ' + watched.statusCode);
let objects = 0;
let synced = false;
let head = null; // the first bytes of the line being received
const onLine = (start) => {
  if (!synced && start.startsWith('{"type":"ADDED"')) objects += 1;
  else if (!synced && start.startsWith('{"type":"BOOKMARK"')) { synced = true; globalThis.report(objects); }
  else if (synced && start.startsWith('{"type":"MODIFIED"')) globalThis.updated();
};
read: for await (const chunk of watched.body) {
  let start = 0;
  while (start < chunk.length) {
    const newline = chunk.indexOf(10, start);
    const end = newline === -1 ? chunk.length : newline;
    if (head === null) head = chunk.subarray(start, Math.min(end, start + 24));
    else if (head.length < 24) head = Buffer.concat([head, chunk.subarray(start, Math.min(end, start + 24 - head.length))]);
    if (newline === -1) break;
    onLine(head.toString('latin1'));
    head = null;
    start = newline + 1;
    if (synced && updates >= expectedUpdates) break read;
  }
}
// A watch the server ended early fails here, saying so, instead of reporting nothing.
if (updates < expectedUpdates) throw new Error('the watch ended after ' + objects + ' objects (synced: ' + synced + ') and ' + updates + ' of ' + expectedUpdates + ' updates');
watched.body.destroy();
await dispatcher.close();`;

/** K_NO_COMPRESSION_SETUP is K_SETUP with `disableCompression` (a kubeconfig's `disable-compression: true`). */
const K_NO_COMPRESSION_SETUP = `import { createClientset } from '@k/clientset';
import { inferConfig } from '@k/config';
import { Informer } from '@k/runtime/informer';
const cs = createClientset({ ...(await inferConfig()), disableCompression: true }, { throttle: 'off' });`;

/** K_JSON_SETUP is K_SETUP with `protobuf: false`: typed reads ask for JSON only. */
const K_JSON_SETUP = `import { inferClientset } from '@k/clientset';
import { Informer } from '@k/runtime/informer';
const cs = await inferClientset({ throttle: 'off', protobuf: false });`;

const NODE_VARIANTS: NodeInformerProgram[] = [
  {
    name: '@k/runtime Informer (default: streaming list as protobuf, managedFields dropped)',
    setup: K_SETUP,
    run: kInformerRun(PODS, '{}'),
  },
  {
    name: '@k/runtime Informer, JSON (`protobuf: false`)',
    setup: K_JSON_SETUP,
    run: kInformerRun(PODS, '{}'),
  },
  {
    name: '@k/runtime Informer, compression off (`disableCompression`)',
    setup: K_NO_COMPRESSION_SETUP,
    run: kInformerRun(PODS, '{}'),
  },
  {
    name: '@k/runtime Informer, paged LIST',
    setup: K_SETUP,
    run: kInformerRun(PODS, '{ watchList: false }'),
  },
  {
    name: '@k/runtime Informer, managedFields kept (`transform: false`)',
    setup: K_SETUP,
    run: kInformerRun(PODS, '{ transform: false }'),
  },
  {
    name: '@k/runtime metadata-only Informer',
    setup: K_SETUP,
    run: kInformerRun(`${PODS}.asMetadata()`, '{}'),
  },
  {
    name: '@kubernetes/client-node 1.4.0 makeInformer',
    setup: CLIENT_NODE_SETUP,
    run: clientNodeInformerRun(
      `'/api/v1/namespaces/' + namespace + '/pods'`,
      'core.listNamespacedPod({ namespace })',
    ),
  },
  { name: 'raw undici + JSON.parse into a Map', setup: RAW_SETUP, run: rawRun(false) },
  { name: 'raw, managedFields deleted', setup: RAW_SETUP, run: rawRun(true) },
  {
    name: 'floor: raw undici receiving the streaming list uncompressed, nothing parsed',
    setup: RAW_SETUP,
    run: RECEIVE_ONLY_RUN,
  },
];

const GO_VARIANTS = [
  { name: 'client-go v0.37.2 default (streaming list, protobuf)', mode: 'default' },
  { name: 'client-go, transform dropping managedFields', mode: 'transform' },
  { name: 'client-go, metadata-only', mode: 'metadata' },
];

/**
 * goInformerBinary builds bench/go/informer once per content of its sources and Go version,
 * into the user cache (`$XDG_CACHE_HOME/k-bench` or `~/.cache/k-bench`).
 */
function goInformerBinary(): string {
  const source = here('./go/informer/');
  const hash = createHash('sha256');
  for (const name of ['go.mod', 'go.sum', 'main.go']) hash.update(readFileSync(join(source, name)));
  hash.update(execFileSync('go', ['version'], { encoding: 'utf8' }));
  const cacheDir = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'k-bench');
  const binary = join(cacheDir, `informer-go-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(binary)) return binary;
  mkdirSync(cacheDir, { recursive: true });
  process.stderr.write(`building ${source} (client-go) into ${binary}\n`);
  const partial = `${binary}.${process.pid}.tmp`;
  execFileSync('go', ['build', '-o', partial, '.'], { cwd: source, stdio: 'inherit' });
  renameSync(partial, binary);
  return binary;
}

/** podManifest is Pod `index`, shaped like one a ReplicaSet of ten creates. */
function podManifest(index: number): Pod {
  const replicaSet = `web-${index % 10}`;
  const hash = '7d9f8c6b5';
  const name = `${replicaSet}-${hash}-${index.toString(36).padStart(5, '0')}`;
  const resources = (cpu: string, memory: string) => ({
    requests: { cpu, memory },
    limits: { cpu: cpu.replace(/m$/, '0m'), memory },
  });
  const fieldEnv = (envName: string, fieldPath: string) => ({
    name: envName,
    valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath } },
  });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      generateName: `${replicaSet}-${hash}-`,
      labels: {
        'app.kubernetes.io/name': 'web',
        'app.kubernetes.io/instance': replicaSet,
        'app.kubernetes.io/version': '1.27.3',
        'app.kubernetes.io/component': 'frontend',
        'app.kubernetes.io/part-of': 'storefront',
        'pod-template-hash': hash,
        team: 'payments',
      },
      annotations: {
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': '9090',
        'kubectl.kubernetes.io/restartedAt': '2026-05-12T09:41:07Z',
      },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: `${replicaSet}-${hash}`,
          uid: `3c4b2a1d-5e6f-4a7b-8c9d-0e1f2a3b4c${String(index % 10).padStart(2, '0')}`,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      containers: [
        {
          name: 'web',
          image: 'registry.example.com/storefront/web:1.27.3',
          args: ['--listen=:8080', '--metrics=:9090', '--log-format=json'],
          ports: [
            { name: 'http', containerPort: 8080, protocol: 'TCP' },
            { name: 'metrics', containerPort: 9090, protocol: 'TCP' },
          ],
          env: [
            fieldEnv('POD_NAME', 'metadata.name'),
            fieldEnv('POD_NAMESPACE', 'metadata.namespace'),
            fieldEnv('POD_IP', 'status.podIP'),
            fieldEnv('NODE_NAME', 'spec.nodeName'),
            { name: 'LOG_LEVEL', value: 'info' },
            {
              name: 'DATABASE_URL',
              valueFrom: { secretKeyRef: { name: 'web-database', key: 'url' } },
            },
            {
              name: 'REDIS_HOST',
              valueFrom: { configMapKeyRef: { name: 'web-config', key: 'redis.host' } },
            },
          ],
          envFrom: [{ configMapRef: { name: 'web-env' } }],
          resources: resources('250m', '512Mi'),
          livenessProbe: {
            httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' },
            initialDelaySeconds: 10,
            periodSeconds: 10,
            timeoutSeconds: 2,
            failureThreshold: 3,
          },
          readinessProbe: {
            httpGet: { path: '/readyz', port: 'http', scheme: 'HTTP' },
            periodSeconds: 5,
            timeoutSeconds: 2,
            failureThreshold: 3,
          },
          volumeMounts: [
            { name: 'config', mountPath: '/etc/web', readOnly: true },
            { name: 'tmp', mountPath: '/tmp' },
            {
              name: 'kube-api-access',
              mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
              readOnly: true,
            },
          ],
          securityContext: {
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            runAsNonRoot: true,
            capabilities: { drop: ['ALL'] },
          },
        },
        {
          name: 'proxy',
          image: 'registry.example.com/mesh/proxy:1.22.4',
          args: ['proxy', 'sidecar', '--concurrency=2', '--log-level=warning'],
          ports: [{ name: 'proxy-admin', containerPort: 15000, protocol: 'TCP' }],
          resources: resources('100m', '128Mi'),
          volumeMounts: [
            {
              name: 'kube-api-access',
              mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
              readOnly: true,
            },
          ],
        },
      ],
      volumes: [
        { name: 'config', configMap: { name: 'web-config', defaultMode: 420 } },
        { name: 'tmp', emptyDir: { sizeLimit: '1Gi' } },
        {
          name: 'kube-api-access',
          projected: {
            defaultMode: 420,
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
              {
                configMap: {
                  name: 'kube-root-ca.crt',
                  items: [{ key: 'ca.crt', path: 'ca.crt' }],
                },
              },
              {
                downwardAPI: {
                  items: [
                    {
                      path: 'namespace',
                      fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' },
                    },
                  ],
                },
              },
            ],
          },
        },
      ],
      serviceAccountName: 'web',
      terminationGracePeriodSeconds: 45,
      securityContext: {
        runAsUser: 10001,
        fsGroup: 10001,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      affinity: {
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              weight: 100,
              podAffinityTerm: {
                topologyKey: 'kubernetes.io/hostname',
                labelSelector: { matchLabels: { 'app.kubernetes.io/instance': replicaSet } },
              },
            },
          ],
        },
      },
      tolerations: [
        {
          key: 'node.kubernetes.io/not-ready',
          operator: 'Exists',
          effect: 'NoExecute',
          tolerationSeconds: 300,
        },
        {
          key: 'node.kubernetes.io/unreachable',
          operator: 'Exists',
          effect: 'NoExecute',
          tolerationSeconds: 300,
        },
      ],
    },
  };
}

async function main(): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const count = Number(process.env.BENCH_PODS ?? 10_000);
  const updates = Number(process.env.BENCH_UPDATES ?? 2000);
  const warmupUpdates = Number(process.env.BENCH_WARMUP_UPDATES ?? updates);
  if (updates > count || warmupUpdates > count) {
    throw new Error('BENCH_UPDATES and BENCH_WARMUP_UPDATES must not exceed BENCH_PODS');
  }
  const only = process.env.BENCH_VARIANTS ? new RegExp(process.env.BENCH_VARIANTS, 'i') : undefined;
  const startLoad = loadAverage();
  const goBinary = goInformerBinary();
  await withBenchCluster('informer-pods', async (cluster) => {
    const { plane, cs, namespace, workDir, env } = cluster;
    const pods = cs.coreV1.pods(namespace);
    const apiServerPid = plane.processes.find((started) => started.name === 'kube-apiserver')?.pid;
    if (apiServerPid === undefined) throw new Error('the plane runs no kube-apiserver');
    const manifests = Array.from({ length: count }, (_, index) => podManifest(index));
    const createStart = performance.now();
    await inParallel(manifests, 64, (manifest) =>
      pods.create(manifest, { fieldManager: 'kube-controller-manager' }),
    );
    const createSeconds = (performance.now() - createStart) / 1000;
    const shape = listShape((await pods.list()).items);

    // Each batch patches the same Pods, with a value of its own so that every patch is a change.
    const names = manifests.map((manifest) => manifest.metadata!.name!);
    let generation = 0;
    const patchBatch = async (size: number): Promise<void> => {
      generation += 1;
      const labels = { 'bench/generation': String(generation) };
      await inParallel(names.slice(0, size), 32, (name) =>
        pods.patch(name, 'merge', { metadata: { labels } }, { fieldManager: 'bench-patcher' }),
      );
    };
    const patchPods = async (): Promise<void> => {
      if (warmupUpdates > 0) await patchBatch(warmupUpdates);
      await patchBatch(updates);
    };

    const connectionFile = join(workDir, 'raw-connection.json');
    writeFileSync(
      connectionFile,
      JSON.stringify({
        server: plane.server,
        caPem: plane.caPem,
        certPem: plane.users.admin.certPem,
        keyPem: plane.users.admin.keyPem,
      }),
      { mode: 0o600 },
    );
    const programs: InformerProgram[] = [
      ...writeNodePrograms(workDir, NODE_VARIANTS),
      ...GO_VARIANTS.map((variant) => ({
        name: variant.name,
        command: goBinary,
        args: ['-mode', variant.mode],
      })),
    ].filter((program) => !only || only.test(program.name));
    const figures = await runInterleaved(programs, rounds, {
      env: {
        ...env,
        BENCH_UPDATES: String(updates),
        BENCH_WARMUP_UPDATES: String(warmupUpdates),
        BENCH_RAW_CONNECTION: connectionFile,
      },
      expectedObjects: count,
      expectedUpdates: updates,
      afterSynced: patchPods,
      serverPid: apiServerPid,
      beforeStart: cluster.collectServerGarbage,
    });
    const lines = [
      `# Benchmark: one informer over ${count.toLocaleString('en-US')} Pods — time to synced, memory, CPU per update`,
      '',
      'Generated by `npx nx run-many -t build && npx tsx bench/informer-pods.bench.ts` (built dist; see the file header).',
      '',
      `Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}, load average ${startLoad} at the start (the machine is shared).`,
      `A real kube-apiserver (tools/testenv, watch cache on) on the same machine, with no nodes, scheduler or controller manager: the Pods stay Pending and nothing but this benchmark writes to them. ${count.toLocaleString('en-US')} Pods created concurrently (64 at a time) in ${format(createSeconds, 0)} s.`,
      `The list is ${format(shape.megabytes)} MB of JSON, ${format(shape.managedFieldsPercent, 0)}% of it managedFields (one create's).`,
      `CPU per update event: label patches once synced, in two batches (${warmupUpdates.toLocaleString('en-US')}, then ${updates.toLocaleString('en-US')}); the child's CPU time (user + system, every thread) for each batch until its last update reached the handler, per event. The first batch is what a process pays right after its sync (in Node, V8 still compiles the update path then); the second is the steady state of a long-running informer.`,
      `${rounds} fresh processes per variant, interleaved, medians.`,
      '',
      '"API server CPU to synced" is the CPU time kube-apiserver used from the program\'s start until it reported synced (its encoding of the list, and gzip when asked for): on these 2 cores the server and the client share the machine. Before each program starts, kube-apiserver runs a full Go garbage collection (pprof, `gc=1`): each list allocates about 170 MB in the server, and a collection costs it some 0.35 s of CPU, so without this one fell into every other sync, on whichever program ran then.',
      '',
      '| informer | time to synced s | API server CPU to synced s | client CPU to synced s | peak RSS MB | RSS after GC MB | heap per 1,000 objects MB | CPU per update event µs, first batch | CPU per update event µs, steady |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...programs.map((program, index) => {
        const row = figures[index];
        return `| ${program.name} | ${format(row.syncedMs / 1000, 2)} | ${format((row.serverCpuToSyncedMs ?? Number.NaN) / 1000, 2)} | ${format(row.cpuToSyncedMs / 1000, 2)} | ${format(row.peakRssMb, 0)} | ${format(row.rssAfterGcMb, 0)} | ${format(row.heapPerThousandMb, 2)} | ${format(row.cpuPerWarmupUpdateUs ?? Number.NaN, 0)} | ${format(row.cpuPerUpdateUs ?? Number.NaN, 0)} |`;
      }),
      '',
    ];
    const report = lines.join('\n');
    if (!only) writeFileSync(here('./results/informer-pods.md'), report);
    process.stdout.write(report);
  });
}

await main();
