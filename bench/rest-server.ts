/**
 * The fake API server of bench/rest.bench.ts, run in its own process (child_process.fork) so it
 * never shares the clients' event loop. It serves plain HTTP and HTTPS on loopback:
 *
 *   GET  /api/v1/namespaces/default/pods/bench        one Pod (~2.6 KB)
 *   POST /api/v1/namespaces/default/configmaps        echoes the ConfigMap back with 201
 *   GET  /api/v1/namespaces/default/pods              a PodList of BENCH_LIST_PODS pods (5,000)
 *   GET  /api/v1/namespaces/default/pods?watch=true   BENCH_WATCH_EVENTS MODIFIED events (20,000), then ends
 *
 * Bodies are built once at start-up, so the server spends its time writing bytes, not encoding.
 * The serving certificate and key are read from K_BENCH_TLS_CERT and K_BENCH_TLS_KEY. It sends
 * `{ plainPort, tlsPort }` to its parent when listening and exits on 'exit' or disconnect.
 */
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';

/** pod returns a realistic Pod: labels, annotations, managed fields, one container, status. */
export function pod(index: number, resourceVersion = 1000 + index): Record<string, unknown> {
  const name = `web-${index.toString(36).padStart(6, '0')}`;
  return {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: {
      name,
      generateName: 'web-',
      namespace: 'default',
      uid: `0d3c5f7a-${index.toString(16).padStart(4, '0')}-4b1e-9a6f-2f1c8e7d6b5a`,
      resourceVersion: String(resourceVersion),
      creationTimestamp: '2026-01-01T00:00:00Z',
      labels: { app: 'web', 'pod-template-hash': '6d4cf56db6', tier: 'frontend' },
      annotations: { 'kubernetes.io/psp': 'restricted', 'prometheus.io/scrape': 'true' },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'web-6d4cf56db6',
          uid: '5a2d6a3c-1f4e-4c8b-9e7d-3b2a1c0f9e8d',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      managedFields: [
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'v1',
          time: '2026-01-01T00:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:generateName': {}, 'f:labels': { '.': {}, 'f:app': {} } },
          },
        },
      ],
    },
    spec: {
      containers: [
        {
          name: 'web',
          image: 'registry.k8s.io/nginx-slim:0.27',
          ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }],
          resources: {
            limits: { cpu: '500m', memory: '128Mi' },
            requests: { cpu: '250m', memory: '64Mi' },
          },
          volumeMounts: [
            {
              name: 'kube-api-access-abcde',
              readOnly: true,
              mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
            },
          ],
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          imagePullPolicy: 'IfNotPresent',
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      nodeName: `node-${index % 50}`,
      securityContext: {},
      schedulerName: 'default-scheduler',
      tolerations: [
        {
          key: 'node.kubernetes.io/not-ready',
          operator: 'Exists',
          effect: 'NoExecute',
          tolerationSeconds: 300,
        },
      ],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
    },
    status: {
      phase: 'Running',
      conditions: [
        {
          type: 'Initialized',
          status: 'True',
          lastProbeTime: null,
          lastTransitionTime: '2026-01-01T00:00:01Z',
        },
        {
          type: 'Ready',
          status: 'True',
          lastProbeTime: null,
          lastTransitionTime: '2026-01-01T00:00:05Z',
        },
        {
          type: 'ContainersReady',
          status: 'True',
          lastProbeTime: null,
          lastTransitionTime: '2026-01-01T00:00:05Z',
        },
        {
          type: 'PodScheduled',
          status: 'True',
          lastProbeTime: null,
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
      hostIP: '10.0.0.5',
      podIP: `10.244.${(index >> 8) & 255}.${index & 255}`,
      podIPs: [{ ip: `10.244.${(index >> 8) & 255}.${index & 255}` }],
      startTime: '2026-01-01T00:00:00Z',
      containerStatuses: [
        {
          name: 'web',
          state: { running: { startedAt: '2026-01-01T00:00:04Z' } },
          lastState: {},
          ready: true,
          restartCount: 0,
          image: 'registry.k8s.io/nginx-slim:0.27',
          imageID:
            'registry.k8s.io/nginx-slim@sha256:8b4f1d2c0e9a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c',
          containerID:
            'containerd://4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e',
          started: true,
        },
      ],
      qosClass: 'Burstable',
    },
  };
}

function serve(): void {
  const listPods = Number(process.env.BENCH_LIST_PODS ?? 5000);
  const watchEvents = Number(process.env.BENCH_WATCH_EVENTS ?? 20_000);
  const single = Buffer.from(JSON.stringify(pod(0)));
  const list = Buffer.from(
    JSON.stringify({
      kind: 'PodList',
      apiVersion: 'v1',
      metadata: { resourceVersion: '99999' },
      items: Array.from({ length: listPods }, (_, index) => pod(index)),
    }),
  );
  const lines: string[] = [];
  for (let index = 0; index < watchEvents; index += 1) {
    lines.push(
      `${JSON.stringify({ type: 'MODIFIED', object: pod(index % 500, 100_000 + index) })}\n`,
    );
  }
  const events = Buffer.from(lines.join(''));

  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    const url = request.url ?? '';
    if (request.method === 'POST') {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks);
        response.writeHead(201, {
          'content-type': 'application/json',
          'content-length': body.length,
        });
        response.end(body);
      });
      return;
    }
    request.resume();
    if (url.startsWith('/api/v1/namespaces/default/pods/bench')) {
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-length': single.length,
      });
      response.end(single);
    } else if (url.startsWith('/api/v1/namespaces/default/pods') && url.includes('watch=true')) {
      response.writeHead(200, {
        'content-type': 'application/json',
        'transfer-encoding': 'chunked',
      });
      let offset = 0;
      const write = (): void => {
        while (offset < events.length) {
          const end = Math.min(events.length, offset + 64 * 1024);
          const more = response.write(events.subarray(offset, end));
          offset = end;
          if (!more) {
            response.once('drain', write);
            return;
          }
        }
        response.end();
      };
      write();
    } else if (url.startsWith('/api/v1/namespaces/default/pods')) {
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-length': list.length,
      });
      response.end(list);
    } else {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(
        '{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}',
      );
    }
  };

  const plain = createHttpServer({ keepAliveTimeout: 90_000 }, handle);
  const tls = createHttpsServer(
    {
      cert: readFileSync(process.env.K_BENCH_TLS_CERT ?? ''),
      key: readFileSync(process.env.K_BENCH_TLS_KEY ?? ''),
      keepAliveTimeout: 90_000,
    },
    handle,
  );
  let listening = 0;
  const ready = (): void => {
    listening += 1;
    if (listening < 2) return;
    process.send?.({
      plainPort: (plain.address() as AddressInfo).port,
      tlsPort: (tls.address() as AddressInfo).port,
    });
  };
  plain.listen(0, '127.0.0.1', ready);
  tls.listen(0, '127.0.0.1', ready);
  process.on('message', (message) => {
    if (message === 'exit') process.exit(0);
  });
  process.on('disconnect', () => process.exit(0));
}

if (process.argv.includes('--serve')) serve();
