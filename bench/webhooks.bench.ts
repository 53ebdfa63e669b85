/**
 * Admission and conversion webhooks: what @k/runtime's `WebhookServer` costs over a bare
 * `node:http2` server answering by hand (the floor), in one run. No peer publishes these figures.
 *
 * Every server runs in a child process of its own (webhook-server-child.ts as a plain node program
 * on k's built dist: build first, `npx nx run @k/runtime:build`):
 *
 * 1. Admission latency through kube-apiserver (an @k/envtest plane of its own, etcd and
 *    kube-apiserver only, loopback): sequential ConfigMap creates in namespaces without a webhook,
 *    with a validating webhook that allows, and with a mutating one that changes nothing, each
 *    served by k and by the floor. Batches of creates rotate across the namespaces; the added
 *    latency is a namespace's p50 (p99) minus the p50 (p99) of the namespace without a webhook.
 * 2. Requests per second at 32 concurrent, directly (not through kube-apiserver): undici `Pool`
 *    with 32 connections (HTTP/1.1 over TLS) POSTing the AdmissionReview of a ~4 KB Deployment to a
 *    validating webhook that allows. One fresh server process per sample, k and floor interleaved;
 *    the server process's CPU time per request is read over IPC.
 * 3. Conversion of a 1,000-object ConversionReview (WebApps, v1alpha1 → v1beta1, ~1 KB each):
 *    `conversionHandler` in this process against a floor of `JSON.parse` + the same converters +
 *    `JSON.stringify`; through each server (sequential POSTs to `/convert`, in the processes of 2);
 *    and end to end, a LIST of 1,000 WebApps through kube-apiserver in the non-storage version
 *    (v1alpha1, converted by the webhook: one CRD per server) against the storage version.
 *
 *   npx tsx --conditions=@k/source bench/webhooks.bench.ts
 *
 * Environment: BENCH_CREATES (per namespace, default 300), BENCH_RPS_SAMPLES (per server,
 * default 4), BENCH_RPS_REQUESTS (per sample, default 4,000), BENCH_LISTS (per version, default 9).
 * Writes bench/results/webhooks.md.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { DynamicResourceClient } from '@k/clientset';
import type {
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
} from '@k/clientset/admissionregistration/v1';
import type { CustomResourceDefinition } from '@k/clientset/apiextensions/v1';
import type { OwnedEnvironment, WebhookServing } from '@k/envtest';
import { conversionHandler } from '@k/runtime/webhook';
import { SILENT_LOGGER } from '@k/runtime';
import { resolveCacheRoot } from '@k/testenv';
import { Pool } from 'undici';
import { format, loadAverage, median } from './figures.js';
import { plainNodeProgram } from './plain-node-program.js';
import {
  BENCH_GROUP,
  DEPLOYMENT_PATH,
  MUTATE_PATH,
  VALIDATE_PATH,
  admissionReview,
  conversionReview,
  deployment,
  webAppFromHub,
  webAppHub,
  webAppToHub,
  type WebAppHub,
  type WebAppSpoke,
} from './webhook-objects.js';

// Loaded as the other envtest benchmarks load it (the workspace's lint wants one way per library).
const { startEnvironment } = await import('@k/envtest');

const here = (name: string): string => fileURLToPath(new URL(name, import.meta.url));
const RESULTS = here('./results/webhooks.md');
const CREATES = Number(process.env.BENCH_CREATES ?? 300);
const CREATE_BATCH = 25;
const RPS_SAMPLES = Number(process.env.BENCH_RPS_SAMPLES ?? 4);
const RPS_REQUESTS = Number(process.env.BENCH_RPS_REQUESTS ?? 4_000);
const RPS_WARM_UP = 1_000;
const CONCURRENCY = 32;
const CONVERSION_OBJECTS = 1_000;
const CONVERSION_CALLS = 10;
const IN_PROCESS_CALLS = 25;
const LISTS = Number(process.env.BENCH_LISTS ?? 9);

type ServerKind = 'k' | 'raw';
const SERVERS: readonly ServerKind[] = ['k', 'raw'];
const SERVER_LABEL: Record<ServerKind, string> = {
  k: '@k/runtime WebhookServer',
  raw: 'floor (node:http2 by hand)',
};

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

/** Server is a running child: its port, and its CPU time and calls so far. */
interface Server {
  readonly kind: ServerKind;
  readonly port: number;
  usage(): Promise<{ cpuMicros: number; calls: number; converted: number }>;
  stop(): Promise<void>;
}

async function startServer(
  program: string,
  kind: ServerKind,
  serving: WebhookServing,
  port: number,
): Promise<Server> {
  const child: ChildProcess = fork(
    program,
    [kind, serving.certPath, serving.keyPath, String(port)],
    {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const listening = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${String(code)}`)));
  });
  return {
    kind,
    port: listening,
    usage: () =>
      new Promise((resolve) => {
        child.once('message', (message) =>
          resolve(message as { cpuMicros: number; calls: number; converted: number }),
        );
        child.send('usage');
      }),
    stop: async () => {
      child.send('stop');
      await exited;
    },
  };
}

// 1. Admission latency through kube-apiserver.

type Variant = 'none' | `${ServerKind}-${'validating' | 'mutating'}`;
const VARIANTS: readonly Variant[] = [
  'none',
  'k-validating',
  'raw-validating',
  'k-mutating',
  'raw-mutating',
];
const NAMESPACE_LABEL = 'bench.k.io/webhook';

function admissionConfigurations(
  serving: WebhookServing,
  kind: ServerKind,
): {
  validating: ValidatingWebhookConfiguration[];
  mutating: MutatingWebhookConfiguration[];
} {
  const entry = (type: 'validating' | 'mutating') => ({
    name: `${type}.${kind}.${BENCH_GROUP}`,
    admissionReviewVersions: ['v1'],
    sideEffects: 'None' as const,
    failurePolicy: 'Fail' as const,
    timeoutSeconds: 10,
    clientConfig: {
      url: serving.url(type === 'validating' ? VALIDATE_PATH : MUTATE_PATH),
      caBundle: serving.caBundle,
    },
    rules: [
      {
        operations: ['CREATE' as const],
        apiGroups: [''],
        apiVersions: ['v1'],
        resources: ['configmaps'],
      },
    ],
    namespaceSelector: { matchLabels: { [NAMESPACE_LABEL]: `${kind}-${type}` } },
  });
  return {
    validating: [
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: `validating.${kind}.${BENCH_GROUP}` },
        webhooks: [entry('validating')],
      },
    ],
    mutating: [
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name: `mutating.${kind}.${BENCH_GROUP}` },
        webhooks: [{ ...entry('mutating'), reinvocationPolicy: 'Never' as const }],
      },
    ],
  };
}

async function admissionLatency(
  plane: OwnedEnvironment,
  servers: Record<ServerKind, Server>,
): Promise<Map<Variant, number[]>> {
  const clientset = await plane.admin.clientset({ userAgent: 'webhooks-bench' });
  for (const variant of VARIANTS) {
    await clientset.coreV1.namespaces().create({
      metadata: { name: `bench-${variant}`, labels: { [NAMESPACE_LABEL]: variant } },
    });
  }
  let sequence = 0;
  const createOne = async (variant: Variant): Promise<number> => {
    const start = performance.now();
    await clientset.coreV1.configMaps(`bench-${variant}`).create({
      metadata: { name: `config-${sequence++}`, labels: { app: 'bench' } },
      data: { 'settings.yaml': 'level: info\nfeatures: [checkout, search]\n'.repeat(8) },
    });
    return performance.now() - start;
  };
  // Warm-up: every path once through (connections to both servers opened, caches filled).
  for (let round = 0; round < 2; round++) {
    for (const variant of VARIANTS)
      for (let each = 0; each < CREATE_BATCH; each++) await createOne(variant);
  }
  const before = { k: (await servers.k.usage()).calls, raw: (await servers.raw.usage()).calls };
  const samples = new Map<Variant, number[]>(VARIANTS.map((variant) => [variant, []]));
  for (let batch = 0; batch < CREATES / CREATE_BATCH; batch++) {
    const order = VARIANTS.map((_, index) => VARIANTS[(index + batch) % VARIANTS.length]);
    for (const variant of order) {
      for (let each = 0; each < CREATE_BATCH; each++)
        samples.get(variant)!.push(await createOne(variant));
    }
  }
  // Each webhook namespace's creates must have called its server once each.
  for (const kind of SERVERS) {
    const calls = (await servers[kind].usage()).calls - before[kind];
    if (calls !== 2 * CREATES)
      throw new Error(`${kind} server saw ${calls} calls, expected ${2 * CREATES}`);
  }
  return samples;
}

// 2. Requests per second at 32 concurrent, and 3b. conversion through the server.

interface DirectSample {
  requestsPerSecond: number;
  serverCpuMicrosPerRequest: number;
  conversionMs: number;
}

async function drive(
  pool: Pool,
  path: string,
  bodies: readonly string[],
  count: number,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const body = bodies[next++ % bodies.length];
      const response = await pool.request({
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json' },
        body,
      });
      const text = await response.body.text();
      if (response.statusCode !== 200 || !text.includes('"allowed":true')) {
        throw new Error(`${path} answered ${response.statusCode}: ${text.slice(0, 200)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

type Protocol = 'http1' | 'http2';
const PROTOCOLS: readonly Protocol[] = ['http1', 'http2'];
const PROTOCOL_LABEL: Record<Protocol, string> = {
  http1: `HTTP/1.1, ${CONCURRENCY} connections`,
  http2: `HTTP/2, 1 connection, ${CONCURRENCY} streams`,
};

async function directSample(
  program: string,
  kind: ServerKind,
  protocol: Protocol,
  serving: WebhookServing,
  admissionBodies: readonly string[],
  conversionBody: string,
): Promise<DirectSample> {
  const server = await startServer(program, kind, serving, 0);
  const pool = new Pool(
    `https://127.0.0.1:${server.port}`,
    protocol === 'http1'
      ? { connections: CONCURRENCY, connect: { ca: serving.caPem } }
      : {
          connections: 1,
          allowH2: true,
          pipelining: CONCURRENCY,
          connect: { ca: serving.caPem, allowH2: true },
        },
  );
  try {
    await drive(pool, DEPLOYMENT_PATH, admissionBodies, RPS_WARM_UP);
    const before = await server.usage();
    const start = performance.now();
    await drive(pool, DEPLOYMENT_PATH, admissionBodies, RPS_REQUESTS);
    const seconds = (performance.now() - start) / 1000;
    const after = await server.usage();
    const conversions: number[] = [];
    for (let call = -2; protocol === 'http1' && call < CONVERSION_CALLS; call++) {
      const started = performance.now();
      const response = await pool.request({
        method: 'POST',
        path: '/convert',
        headers: { 'content-type': 'application/json' },
        body: conversionBody,
      });
      const review = (await response.body.json()) as { response: { convertedObjects: unknown[] } };
      if (review.response.convertedObjects?.length !== CONVERSION_OBJECTS) {
        throw new Error(`${kind} /convert answered ${JSON.stringify(review).slice(0, 300)}`);
      }
      if (call >= 0) conversions.push(performance.now() - started);
    }
    return {
      requestsPerSecond: RPS_REQUESTS / seconds,
      serverCpuMicrosPerRequest: (after.cpuMicros - before.cpuMicros) / RPS_REQUESTS,
      conversionMs: conversions.length > 0 ? median(conversions) : Number.NaN,
    };
  } finally {
    await pool.close();
    await server.stop();
  }
}

// 3a. Conversion in this process.

async function inProcessConversion(): Promise<{ k: number[]; floor: number[] }> {
  const group = `k.${BENCH_GROUP}`;
  const hub = `${group}/v1beta1`;
  const spoke = `${group}/v1alpha1`;
  const handler = conversionHandler([
    {
      group,
      kind: 'WebApp',
      plural: 'webapps',
      hub: 'v1beta1',
      spokes: {
        v1alpha1: {
          toHub: (object) => webAppToHub(object as WebAppSpoke, hub),
          fromHub: (object) => webAppFromHub(object as WebAppHub, spoke),
        },
      },
    },
  ]);
  const body = Buffer.from(conversionBody(group, 'v1beta1'));
  const call = {
    body,
    contentType: 'application/json',
    signal: new AbortController().signal,
    logger: SILENT_LOGGER,
  };
  const k: number[] = [];
  const floor: number[] = [];
  for (let round = -5; round < IN_PROCESS_CALLS; round++) {
    // The handler's work with the bytes in and the bytes out (the server encodes its reply).
    let start = performance.now();
    const reply = await handler(call);
    JSON.stringify(reply.body);
    const kMs = performance.now() - start;
    start = performance.now();
    const review = JSON.parse(body.toString('utf8')) as {
      request: { objects: WebAppSpoke[]; uid: string };
    };
    JSON.stringify({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      response: {
        uid: review.request.uid,
        result: { status: 'Success' },
        convertedObjects: review.request.objects.map((object) => webAppToHub(object, hub)),
      },
    });
    const floorMs = performance.now() - start;
    if (round >= 0) {
      k.push(kMs);
      floor.push(floorMs);
    }
  }
  return { k, floor };
}

/** conversionBody is a ConversionReview of 1,000 v1alpha1 WebApps of `group` to `desired`. */
function conversionBody(group: string, desired: string): string {
  const objects = Array.from({ length: CONVERSION_OBJECTS }, (_, index) =>
    webAppFromHub(webAppHub(group, 'default', index), `${group}/v1alpha1`),
  );
  return conversionReview(objects, `${group}/${desired}`);
}

// 3c. LIST through kube-apiserver, converted or not.

function webAppCrd(group: string): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `webapps.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'webapps', singular: 'webapp', kind: 'WebApp', listKind: 'WebAppList' },
      conversion: { strategy: 'Webhook' },
      versions: ['v1alpha1', 'v1beta1'].map((name) => ({
        name,
        served: true,
        storage: name === 'v1beta1',
        schema: {
          openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      })),
    },
  };
}

type ListVariant = 'storage' | `converted-${ServerKind}`;

async function listLatency(
  plane: OwnedEnvironment,
  servings: Record<ServerKind, WebhookServing>,
  servers: Record<ServerKind, Server>,
): Promise<{ samples: Map<ListVariant, number[]>; reviewsPerList: number }> {
  const clientset = await plane.admin.clientset({ userAgent: 'webhooks-bench-list' });
  const clients = {} as Record<ServerKind, Record<'v1alpha1' | 'v1beta1', DynamicResourceClient>>;
  for (const kind of SERVERS) {
    const group = `${kind}.${BENCH_GROUP}`;
    await plane.installCrds({
      objects: [webAppCrd(group)],
      conversion: { serving: servings[kind], path: '/convert' },
    });
    clients[kind] = {
      v1alpha1: (await clientset.dynamic.forKind(`${group}/v1alpha1`, 'WebApp')).inNamespace(
        'bench-lists',
      ),
      v1beta1: (await clientset.dynamic.forKind(`${group}/v1beta1`, 'WebApp')).inNamespace(
        'bench-lists',
      ),
    };
  }
  await clientset.coreV1.namespaces().create({ metadata: { name: 'bench-lists' } });
  for (const kind of SERVERS) {
    const group = `${kind}.${BENCH_GROUP}`;
    for (let start = 0; start < CONVERSION_OBJECTS; start += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, offset) =>
          clients[kind].v1beta1.create(webAppHub(group, 'bench-lists', start + offset) as never),
        ),
      );
    }
  }
  const reviewsPerList: number[] = [];
  const list = async (
    client: DynamicResourceClient,
    apiVersion: string,
    server: Server,
  ): Promise<number> => {
    const usage = await server.usage();
    const start = performance.now();
    const result = (await client.list()) as {
      items: { apiVersion?: string; spec?: { image?: unknown } }[];
    };
    const ms = performance.now() - start;
    if (result.items.length !== CONVERSION_OBJECTS) {
      throw new Error(`listed ${result.items.length} WebApps`);
    }
    // Every object of a LIST in the other version went through the webhook, none of the storage one.
    const after = await server.usage();
    const converted = after.converted - usage.converted;
    // The floor counts its ConversionReviews among its calls (k's server counts admission only).
    if (server.kind === 'raw' && converted > 0) reviewsPerList.push(after.calls - usage.calls);
    const expected = apiVersion.endsWith('v1alpha1') ? CONVERSION_OBJECTS : 0;
    if (
      converted !== expected ||
      (expected > 0 && typeof result.items[0]?.spec?.image !== 'string')
    ) {
      throw new Error(`a ${apiVersion} LIST converted ${converted} objects, expected ${expected}`);
    }
    return ms;
  };
  const samples = new Map<ListVariant, number[]>([
    ['storage', []],
    ['converted-k', []],
    ['converted-raw', []],
  ]);
  const tasks: [ListVariant, () => Promise<number>][] = [
    ['storage', () => list(clients.k.v1beta1, `k.${BENCH_GROUP}/v1beta1`, servers.k)],
    ['converted-k', () => list(clients.k.v1alpha1, `k.${BENCH_GROUP}/v1alpha1`, servers.k)],
    ['converted-raw', () => list(clients.raw.v1alpha1, `raw.${BENCH_GROUP}/v1alpha1`, servers.raw)],
  ];
  for (let round = -2; round < LISTS; round++) {
    for (let index = 0; index < tasks.length; index++) {
      const [variant, task] = tasks[(index + round + 2) % tasks.length];
      const ms = await task();
      if (round >= 0) samples.get(variant)!.push(ms);
    }
  }
  return { samples, reviewsPerList: median(reviewsPerList) };
}

async function main(): Promise<void> {
  const startLoad = loadAverage();
  const started = new Date();
  const program = await plainNodeProgram(here('./webhook-server-child.ts'));

  // 3a first, while nothing else runs in this process.
  const inProcess = await inProcessConversion();

  const plane = await startEnvironment({
    binaries: 'cache',
    cacheRoot: resolveCacheRoot(),
    build: false,
    nodes: 0,
    scheduler: false,
    controllerManager: false,
    // Without it a LIST in a non-storage version is served from that version's watch cache,
    // converted once as objects change, and calls no webhook (see the README).
    extraApiServerFlags: ['--watch-cache=false'],
  });
  let admission!: Map<Variant, number[]>;
  let lists!: { samples: Map<ListVariant, number[]>; reviewsPerList: number };
  const direct = new Map<`${ServerKind} ${Protocol}`, DirectSample[]>(
    SERVERS.flatMap((kind) => PROTOCOLS.map((protocol) => [`${kind} ${protocol}` as const, []])),
  );
  try {
    const servings = {
      k: await plane.webhookServing(),
      raw: await plane.webhookServing(),
    };
    const servers = {
      k: await startServer(program, 'k', servings.k, servings.k.port),
      raw: await startServer(program, 'raw', servings.raw, servings.raw.port),
    };
    try {
      for (const kind of SERVERS) {
        await plane.installWebhooks({
          serving: servings[kind],
          ...admissionConfigurations(servings[kind], kind),
        });
      }
      admission = await admissionLatency(plane, servers);
      lists = await listLatency(plane, servings, servers);
    } finally {
      await Promise.all(SERVERS.map((kind) => servers[kind].stop()));
    }

    // 2 and 3b: a fresh server process per sample, k and floor interleaved.
    const admissionBodies = Array.from({ length: 64 }, (_, index) =>
      admissionReview(
        deployment(index),
        `3b7e${String(index).padStart(4, '0')}-6393-11e8-b7cc-42010a800002`,
      ),
    );
    const convertBody = conversionBody(`k.${BENCH_GROUP}`, 'v1beta1');
    const rawConvertBody = conversionBody(`raw.${BENCH_GROUP}`, 'v1beta1');
    for (let sample = 0; sample < RPS_SAMPLES; sample++) {
      const order: ServerKind[] = sample % 2 === 0 ? ['k', 'raw'] : ['raw', 'k'];
      for (const protocol of PROTOCOLS) {
        for (const kind of order) {
          const body = kind === 'k' ? convertBody : rawConvertBody;
          direct
            .get(`${kind} ${protocol}`)!
            .push(
              await directSample(program, kind, protocol, servings[kind], admissionBodies, body),
            );
        }
      }
    }
  } finally {
    await plane.stop();
  }

  const endLoad = loadAverage();
  const reviewBytes = Buffer.byteLength(
    admissionReview(deployment(0), '3b7e0000-6393-11e8-b7cc-42010a800002'),
  );
  const objectBytes = Buffer.byteLength(JSON.stringify(deployment(0)));
  const conversionBytes = Buffer.byteLength(conversionBody(`k.${BENCH_GROUP}`, 'v1beta1'));
  const none = admission.get('none')!;
  const admissionRow = (variant: Variant): string => {
    const values = admission.get(variant)!;
    const p50 = percentile(values, 0.5);
    const p99 = percentile(values, 0.99);
    if (variant === 'none') {
      return `| no webhook | ${format(p50, 2)} | ${format(p99, 2)} | — | — |`;
    }
    const [kind, type] = variant.split('-') as [ServerKind, string];
    return `| ${type}, ${SERVER_LABEL[kind]} | ${format(p50, 2)} | ${format(p99, 2)} | ${format(p50 - percentile(none, 0.5), 2)} | ${format(p99 - percentile(none, 0.99), 2)} |`;
  };
  const added = (variant: Variant): number =>
    percentile(admission.get(variant)!, 0.5) - percentile(none, 0.5);
  const directFigure = (
    kind: ServerKind,
    protocol: Protocol,
    pick: (sample: DirectSample) => number,
  ): number => median(direct.get(`${kind} ${protocol}`)!.map(pick));
  const rps = (kind: ServerKind, protocol: Protocol): number =>
    directFigure(kind, protocol, (sample) => sample.requestsPerSecond);
  const cpu = (kind: ServerKind, protocol: Protocol): number =>
    directFigure(kind, protocol, (sample) => sample.serverCpuMicrosPerRequest);
  const spread = (kind: ServerKind, protocol: Protocol): string => {
    const values = direct.get(`${kind} ${protocol}`)!.map((sample) => sample.requestsPerSecond);
    return `${format(Math.min(...values), 0)}–${format(Math.max(...values), 0)}`;
  };
  const convertMs = (kind: ServerKind): number =>
    directFigure(kind, 'http1', (sample) => sample.conversionMs);
  const listMs = (variant: ListVariant): number => median(lists.samples.get(variant)!);
  const perObject = (ms: number): string => format((ms * 1000) / CONVERSION_OBJECTS, 1);

  const lines = [
    '# webhooks: admission and conversion through @k/runtime WebhookServer',
    '',
    `Generated by \`npx tsx --conditions=@k/source bench/webhooks.bench.ts\` on ${started.toISOString()}; servers are plain node programs on the built dist.`,
    '',
    `- machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, shared with other work`,
    `- node: ${process.version}; control plane: @k/envtest ${plane.kubernetesVersion} (etcd + kube-apiserver), loopback`,
    `- load average (1, 5, 15 min): ${startLoad} at the start, ${endLoad} at the end`,
    '',
    '## Admission latency added to a ConfigMap create (through kube-apiserver)',
    '',
    `Sequential creates, ${CREATES} per row after ${2 * CREATE_BATCH} of warm-up, in batches of ${CREATE_BATCH} rotating across the rows. Added = the row minus "no webhook" at the same percentile.`,
    '',
    '| webhook | p50 ms | p99 ms | added p50 ms | added p99 ms |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...VARIANTS.map(admissionRow),
    '',
    `Added p50, k ÷ floor: validating ${format(added('k-validating') / added('raw-validating'), 2)}x, mutating ${format(added('k-mutating') / added('raw-mutating'), 2)}x.`,
    '',
    `## Requests per second at ${CONCURRENCY} concurrent (direct)`,
    '',
    `undici \`Pool\` in the benchmark's process, over TLS: ${CONCURRENCY} HTTP/1.1 connections, or one HTTP/2 connection with ${CONCURRENCY} streams (kube-apiserver's client speaks HTTP/2 to webhooks); AdmissionReview of a Deployment (object ${format(objectBytes / 1024, 1)} KB, review ${format(reviewBytes / 1024, 1)} KB) to a validating webhook that allows; ${RPS_REQUESTS} requests per sample after ${RPS_WARM_UP} of warm-up; median of ${RPS_SAMPLES} samples, each a fresh server process, the servers interleaved. Server CPU is the server process's user + system time over the measured requests.`,
    '',
    '| client | server | req/s | req/s min–max | vs floor | server CPU µs/req | vs floor |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
    ...PROTOCOLS.flatMap((protocol) =>
      SERVERS.map(
        (kind) =>
          `| ${PROTOCOL_LABEL[protocol]} | ${SERVER_LABEL[kind]} | ${format(rps(kind, protocol), 0)} | ${spread(kind, protocol)} | ${format(rps(kind, protocol) / rps('raw', protocol), 2)}x | ${format(cpu(kind, protocol), 1)} | ${format(cpu(kind, protocol) / cpu('raw', protocol), 2)}x |`,
      ),
    ),
    '',
    `## Conversion of ${format(CONVERSION_OBJECTS, 0)} WebApps (v1alpha1 → v1beta1)`,
    '',
    `One ConversionReview of ${format(CONVERSION_OBJECTS, 0)} objects (${format(conversionBytes / 1024, 0)} KB). In process: the handler from the body's bytes to its reply encoded (median of ${IN_PROCESS_CALLS} after 5 of warm-up), against the floor of \`JSON.parse\` + the same converters + \`JSON.stringify\`. Through the server: one POST to \`/convert\` at a time over TLS (median of ${CONVERSION_CALLS} per process after 2, median over the processes of the previous table).`,
    '',
    '| path | ms per review | µs per object | vs floor |',
    '| --- | ---: | ---: | ---: |',
    `| in process, \`conversionHandler\` | ${format(median(inProcess.k), 2)} | ${perObject(median(inProcess.k))} | ${format(median(inProcess.k) / median(inProcess.floor), 2)}x |`,
    `| in process, floor | ${format(median(inProcess.floor), 2)} | ${perObject(median(inProcess.floor))} | 1.00x |`,
    `| through the server, ${SERVER_LABEL.k} | ${format(convertMs('k'), 2)} | ${perObject(convertMs('k'))} | ${format(convertMs('k') / convertMs('raw'), 2)}x |`,
    `| through the server, ${SERVER_LABEL.raw} | ${format(convertMs('raw'), 2)} | ${perObject(convertMs('raw'))} | 1.00x |`,
    '',
    `### LIST of ${format(CONVERSION_OBJECTS, 0)} WebApps through kube-apiserver`,
    '',
    `Stored as v1beta1; kube-apiserver runs with \`--watch-cache=false\`, so a LIST in v1alpha1 reads etcd and sends every object to the CRD's conversion webhook (one CRD per server; the benchmark checks each LIST converted 1,000 objects, and the storage-version LIST none). With the watch cache on (the default) kube-apiserver keeps a cache per served version, converted as objects change, and such a LIST calls no webhook. Median of ${LISTS} lists each after 2 rounds of warm-up, interleaved; the time includes the client's decoding (@k/clientset dynamic client).`,
    '',
    '| LIST | ms | added ms | added µs per object |',
    '| --- | ---: | ---: | ---: |',
    `| v1beta1 (storage version, no conversion) | ${format(listMs('storage'), 1)} | — | — |`,
    ...SERVERS.map((kind) => {
      const addedMs = listMs(`converted-${kind}`) - listMs('storage');
      return `| v1alpha1, converted by ${SERVER_LABEL[kind]} | ${format(listMs(`converted-${kind}`), 1)} | ${format(addedMs, 1)} | ${perObject(addedMs)} |`;
    }),
    '',
    `kube-apiserver sent each v1alpha1 LIST's ${format(CONVERSION_OBJECTS, 0)} objects to the webhook in ${format(lists.reviewsPerList, 0)} ConversionReviews (counted by the floor, median).`,
    '',
  ];
  writeFileSync(RESULTS, lines.join('\n'));
  console.log(lines.join('\n'));
}

await main();
