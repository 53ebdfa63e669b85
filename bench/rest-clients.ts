/**
 * The clients compared by bench/rest.bench.ts, each doing the same four operations against the
 * fake server of bench/rest-server.ts. Libraries are imported lazily, so a child process that
 * measures one client's memory loads only that client.
 */
import type { ResolvedConfig } from '@k/config';
import type { RestClient } from '@k/rest';

/** BenchTarget is where a client connects: the server origin and, for TLS, the CA to trust. */
export interface BenchTarget {
  origin: string;
  caPem?: string;
}

/** BenchClient runs the benchmark operations; each resolves once the objects are in hand. */
export interface BenchClient {
  name: string;
  getPod(): Promise<unknown>;
  postConfigMap(): Promise<unknown>;
  /** listPods resolves with the decoded pods. */
  listPods(): Promise<unknown[]>;
  /** watchPods resolves with the number of events decoded when the server ends the watch. */
  watchPods(): Promise<number>;
  close(): Promise<void>;
}

/** CLIENT_KINDS names the clients in table order; the first is the baseline. */
export const CLIENT_KINDS = [
  'raw-undici',
  'k-rest',
  'k-rest-transport',
  'k-clientset',
  'client-node',
] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];

export const CLIENT_NAMES: Record<ClientKind, string> = {
  'raw-undici': 'raw undici + JSON.parse',
  'k-rest': '@k/rest (undici Agent)',
  'k-rest-transport': '@k/rest on @k/transport',
  'k-clientset': '@k/clientset typed (createClientset)',
  'client-node': '@kubernetes/client-node 1.4.0',
};

const POD_PATH = '/api/v1/namespaces/default/pods/bench';
const LIST_PATH = '/api/v1/namespaces/default/pods';
const CONFIG_MAPS_PATH = '/api/v1/namespaces/default/configmaps';

/** configMap is the POST body: a ConfigMap of about 1 KB. */
function configMap(): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'bench', namespace: 'default', labels: { app: 'bench' } },
    data: Object.fromEntries(
      Array.from({ length: 16 }, (_, index) => [`key-${index}`, `value-${index}-`.padEnd(48, 'x')]),
    ),
  };
}

interface PodList {
  items: unknown[];
}

async function rawUndici(target: BenchTarget): Promise<BenchClient> {
  const { Agent, request } = await import('undici');
  const agent = new Agent(target.caPem ? { connect: { ca: target.caPem } } : {});
  const headers = { accept: 'application/json' };
  const getJson = async (path: string): Promise<unknown> => {
    const response = await request(`${target.origin}${path}`, { dispatcher: agent, headers });
    if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`);
    return JSON.parse(await response.body.text()) as unknown;
  };
  return {
    name: CLIENT_NAMES['raw-undici'],
    getPod: () => getJson(POD_PATH),
    postConfigMap: async () => {
      const response = await request(`${target.origin}${CONFIG_MAPS_PATH}`, {
        dispatcher: agent,
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(configMap()),
      });
      if (response.statusCode !== 201) throw new Error(`status ${response.statusCode}`);
      return JSON.parse(await response.body.text()) as unknown;
    },
    listPods: async () => ((await getJson(LIST_PATH)) as PodList).items,
    watchPods: async () => {
      const response = await request(`${target.origin}${LIST_PATH}?watch=true`, {
        dispatcher: agent,
        headers,
      });
      let count = 0;
      let pending = '';
      response.body.setEncoding('utf8');
      for await (const chunk of response.body as AsyncIterable<string>) {
        const text = pending === '' ? chunk : pending + chunk;
        let start = 0;
        let newline = text.indexOf('\n');
        while (newline !== -1) {
          const event = JSON.parse(text.slice(start, newline)) as { type: string };
          if (event.type) count += 1;
          start = newline + 1;
          newline = text.indexOf('\n', start);
        }
        pending = text.slice(start);
      }
      return count;
    },
    close: () => agent.close(),
  };
}

async function kRest(target: BenchTarget): Promise<BenchClient> {
  const { Agent } = await import('undici');
  const { RestClient } = await import('@k/rest');
  const { apiServerDispatcher } = await import('@k/transport');
  const agent = new Agent(target.caPem ? { connect: { ca: target.caPem } } : {});
  const client = new RestClient(apiServerDispatcher(agent, target.origin), { throttle: 'off' });
  return restOperations(CLIENT_NAMES['k-rest'], client, () => agent.close());
}

function benchConfig(target: BenchTarget): ResolvedConfig {
  return {
    server: target.origin,
    contextName: 'bench',
    clusterName: 'bench',
    userName: 'bench',
    namespace: 'default',
    namespaceExplicit: false,
    tls: target.caPem
      ? { caData: new TextEncoder().encode(target.caPem), insecure: false }
      : { insecure: false },
    auth: { kind: 'none' },
    // The fake server does not compress; gzip negotiation would only add a header here.
    disableCompression: true,
    source: 'kubeconfig',
  };
}

async function kRestTransport(target: BenchTarget): Promise<BenchClient> {
  const { createRestClient } = await import('@k/rest');
  const client = createRestClient(benchConfig(target), { throttle: 'off' });
  return restOperations(CLIENT_NAMES['k-rest-transport'], client, () => client.close());
}

function restOperations(name: string, client: RestClient, close: () => Promise<void>): BenchClient {
  return {
    name,
    getPod: () => client.get().namespace('default').resource('pods').name('bench').execute(),
    postConfigMap: () =>
      client.post().namespace('default').resource('configmaps').body(configMap()).execute(),
    listPods: async () =>
      (await client.get().namespace('default').resource('pods').execute<PodList>()).items,
    watchPods: async () => {
      let count = 0;
      const watch = await client.get().namespace('default').resource('pods').watch();
      for await (const event of watch) if (event.type) count += 1;
      return count;
    },
    close,
  };
}

/** kClientset is what an application calls: the typed clients of createClientset. */
async function kClientset(target: BenchTarget): Promise<BenchClient> {
  const { createClientset } = await import('@k/clientset');
  const cs = createClientset(benchConfig(target), { throttle: 'off' });
  const pods = cs.coreV1.pods('default');
  const configMaps = cs.coreV1.configMaps('default');
  return {
    name: CLIENT_NAMES['k-clientset'],
    getPod: () => pods.get('bench'),
    postConfigMap: () => configMaps.create(configMap()),
    listPods: async () => (await pods.list()).items,
    watchPods: async () => {
      let count = 0;
      for await (const event of await pods.watch()) if (event.type) count += 1;
      return count;
    },
    close: () => cs.close(),
  };
}

async function clientNode(target: BenchTarget): Promise<BenchClient> {
  const clientNodeModule = await import('@kubernetes/client-node');
  const kubeConfig = new clientNodeModule.KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [
      {
        name: 'bench',
        server: target.origin,
        // client-node refuses plain http unless TLS verification is "skipped" (there is none).
        ...(target.caPem
          ? { caData: Buffer.from(target.caPem).toString('base64'), skipTLSVerify: false }
          : { skipTLSVerify: true }),
      },
    ],
    users: [{ name: 'bench' }],
    contexts: [{ name: 'bench', cluster: 'bench', user: 'bench' }],
    currentContext: 'bench',
  });
  const core = kubeConfig.makeApiClient(clientNodeModule.CoreV1Api);
  const watcher = new clientNodeModule.Watch(kubeConfig);
  return {
    name: CLIENT_NAMES['client-node'],
    getPod: () => core.readNamespacedPod({ name: 'bench', namespace: 'default' }),
    postConfigMap: () =>
      core.createNamespacedConfigMap({
        namespace: 'default',
        body: configMap(),
      }),
    listPods: async () => (await core.listNamespacedPod({ namespace: 'default' })).items,
    watchPods: () =>
      new Promise<number>((resolve, reject) => {
        let count = 0;
        watcher
          .watch(
            LIST_PATH,
            {},
            (type) => {
              if (type) count += 1;
            },
            (error: unknown) => (error ? reject(error as Error) : resolve(count)),
          )
          .catch(reject);
      }),
    close: () => Promise.resolve(),
  };
}

/** makeClient builds the client of `kind` for `target`. */
export function makeClient(kind: ClientKind, target: BenchTarget): Promise<BenchClient> {
  switch (kind) {
    case 'raw-undici':
      return rawUndici(target);
    case 'k-rest':
      return kRest(target);
    case 'k-rest-transport':
      return kRestTransport(target);
    case 'k-clientset':
      return kClientset(target);
    case 'client-node':
      return clientNode(target);
  }
}
