/**
 * A webhook server in a process of its own, for webhooks.bench.ts (run as a plain node program on
 * k's built dist, see plain-node-program.ts): `k` is @k/runtime's `WebhookServer`, `raw` the floor
 * — `node:http2`'s `createSecureServer` (HTTP/1.1 allowed, as k's) answering by hand. Both serve
 * the same paths: ConfigMap validating and mutating webhooks that allow everything, a Deployment
 * validating webhook, and `/convert` for the WebApps of `<kind>.webhooks.bench.k.io`.
 *
 *   node webhook-server-child.mjs <k|raw> <certFile> <keyFile> <port>
 *
 * It sends `{ port }` over IPC once it listens; a `usage` message is answered with
 * `{ cpuMicros, calls, converted }` (this process's user + system CPU time, the admission calls
 * served and the objects converted); `stop` ends it.
 */
import { readFileSync } from 'node:fs';
import { createSecureServer } from 'node:http2';
import { WebhookServer } from '@k/runtime/webhook';
import {
  BENCH_GROUP,
  DEPLOYMENT_PATH,
  MUTATE_PATH,
  VALIDATE_PATH,
  webAppFromHub,
  webAppToHub,
  type WebAppHub,
  type WebAppSpoke,
} from './webhook-objects.js';

const [kind, certFile, keyFile, portText] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
];
const group = `${kind}.${BENCH_GROUP}`;
const hubVersion = `${group}/v1beta1`;
const spokeVersion = `${group}/v1alpha1`;
let calls = 0;
let converted = 0;
const stop = new AbortController();

function send(message: unknown): void {
  process.send?.(message);
}

process.on('message', (message) => {
  if (message === 'usage') {
    const cpu = process.cpuUsage();
    send({ cpuMicros: cpu.user + cpu.system, calls, converted });
  } else if (message === 'stop') {
    stop.abort();
    setTimeout(() => process.exit(0), 3_000).unref();
  }
});

async function serveK(): Promise<void> {
  const configMaps = {
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
    plural: 'configmaps',
    namespaced: true,
  };
  const deployments = {
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    plural: 'deployments',
    namespaced: true,
  };
  const server = new WebhookServer({
    host: '127.0.0.1',
    port: Number(portText),
    certificate: { certFile, keyFile },
    onListening: (address) => send({ port: address.port }),
  })
    .validating(configMaps, { create: () => void calls++ })
    .mutating(configMaps, { mutate: () => void calls++ })
    .validating(deployments, { create: () => void calls++ })
    .conversion<WebAppHub, { v1alpha1: WebAppSpoke }>({
      group,
      kind: 'WebApp',
      plural: 'webapps',
      hub: 'v1beta1',
      spokes: {
        v1alpha1: {
          toHub: (spoke) => {
            converted++;
            return webAppToHub(spoke, hubVersion);
          },
          fromHub: (hub) => {
            converted++;
            return webAppFromHub(hub, spokeVersion);
          },
        },
      },
    });
  await server.start(stop.signal);
}

interface Review {
  request: { uid: string; desiredAPIVersion?: string; objects?: { apiVersion: string }[] };
}

/** answer is the raw floor's whole work for one call: parse, decide, encode. */
function answer(path: string, body: string): string {
  const review = JSON.parse(body) as Review;
  calls++;
  if (path === '/convert') {
    const desired = review.request.desiredAPIVersion;
    const convertedObjects = (review.request.objects ?? []).map((object) => {
      if (object.apiVersion === desired) return object;
      converted++;
      return desired === hubVersion
        ? webAppToHub(object as WebAppSpoke, hubVersion)
        : webAppFromHub(object as WebAppHub, spokeVersion);
    });
    return JSON.stringify({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      response: { uid: review.request.uid, result: { status: 'Success' }, convertedObjects },
    });
  }
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: { uid: review.request.uid, allowed: true },
  });
}

const PATHS = new Set([VALIDATE_PATH, MUTATE_PATH, DEPLOYMENT_PATH, '/convert']);

function serveRaw(): void {
  const server = createSecureServer(
    { allowHTTP1: true, cert: readFileSync(certFile), key: readFileSync(keyFile) },
    (request, response) => {
      const path = (request.url ?? '').split('?')[0] ?? '';
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (request.method !== 'POST' || !PATHS.has(path)) {
          response.writeHead(404).end();
          return;
        }
        const reply = answer(path, Buffer.concat(chunks).toString('utf8'));
        response.writeHead(200, { 'content-type': 'application/json' }).end(reply);
      });
    },
  );
  server.listen(Number(portText), '127.0.0.1', () => {
    const address = server.address();
    send({ port: typeof address === 'object' && address ? address.port : 0 });
  });
  stop.signal.addEventListener('abort', () => server.close());
}

if (kind === 'k') await serveK();
else serveRaw();
