import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ControlPlaneBinaries } from './binary-sources.js';
import {
  apiServerFlags,
  controllerManagerFlags,
  etcdFlags,
  KWOK_NODE_ANNOTATION,
  kwokFlags,
  NODE_ADDRESS,
  schedulerFlags,
  type ApiServerFlagOptions,
  type ComponentPorts,
} from './component-flags.js';
import type { ComponentName } from './control-plane.js';
import { ControlPlaneError } from './errors.js';
import { kubeRequest } from './kube-request.js';
import { KWOK_CRD_KINDS, splitDocuments, type KwokFiles } from './kwok-build.js';
import type { Pki } from './pki.js';

/** ComponentSpec is how to start one component and how to tell it is ready. */
export interface ComponentSpec {
  readonly name: ComponentName;
  readonly command: string;
  readonly args: readonly string[];
  readonly ready: () => Promise<boolean>;
  readonly diagnose?: () => Promise<string>;
}

/** etcdSpec: ready when `/health` says `"health":"true"`. */
export function etcdSpec(
  binaries: ControlPlaneBinaries,
  runDir: string,
  ports: ComponentPorts,
  extra?: readonly string[],
): ComponentSpec {
  const etcdUrl = `http://127.0.0.1:${ports.etcd}`;
  return {
    name: 'etcd',
    command: binaries.etcd,
    args: etcdFlags(runDir, ports, extra),
    ready: async () => {
      const response = await kubeRequest({ server: etcdUrl, path: '/health', timeoutMs: 1000 });
      return response.status === 200 && response.body.includes('"health":"true"');
    },
  };
}

/** apiServerSpec: ready when `/readyz` is 200; a timeout quotes the failed `/readyz?verbose` checks. */
export function apiServerSpec(
  command: string,
  asAdmin: AdminRequest,
  flags: ApiServerFlagOptions,
): ComponentSpec {
  return {
    name: 'kube-apiserver',
    command,
    args: apiServerFlags(flags),
    ready: async () =>
      (await kubeRequest({ ...asAdmin, path: '/readyz', timeoutMs: 2000 })).status === 200,
    diagnose: async () => {
      const response = await kubeRequest({ ...asAdmin, path: '/readyz?verbose' }).catch(
        () => undefined,
      );
      return response
        ? response.body
            .split('\n')
            .filter((line) => line.includes('failed'))
            .join('\n')
        : '';
    },
  };
}

/** ControllerSpecOptions are what kube-controller-manager, kube-scheduler and kwok need. */
export interface ControllerSpecOptions {
  readonly runDir: string;
  readonly ports: ComponentPorts;
  readonly pki: Pki;
  readonly kubeconfigPath: string;
  readonly asAdmin: AdminRequest;
  readonly extra?: readonly string[] | undefined;
}

/** healthz probes a component's `/healthz` on 127.0.0.1 (its self-signed certificate unchecked). */
function healthz(port: number): () => Promise<boolean> {
  return async () =>
    (
      await kubeRequest({
        server: `https://127.0.0.1:${port}`,
        path: '/healthz',
        timeoutMs: 1000,
      })
    ).status === 200;
}

/**
 * controllerManagerSpec: ready when healthy and working, which the `default` ServiceAccount of
 * namespace `default` proves (its controller made it).
 */
export function controllerManagerSpec(
  command: string,
  options: ControllerSpecOptions,
): ComponentSpec {
  const { runDir, ports, pki, kubeconfigPath, asAdmin } = options;
  const healthy = healthz(ports.controllerManager);
  return {
    name: 'kube-controller-manager',
    command,
    args: controllerManagerFlags(runDir, ports, pki, kubeconfigPath, options.extra),
    ready: async () =>
      (await healthy()) &&
      (
        await kubeRequest({
          ...asAdmin,
          path: '/api/v1/namespaces/default/serviceaccounts/default',
        })
      ).status === 200,
  };
}

/** schedulerSpec: ready when healthy. */
export function schedulerSpec(command: string, options: ControllerSpecOptions): ComponentSpec {
  return {
    name: 'kube-scheduler',
    command,
    args: schedulerFlags(options.runDir, options.ports, options.kubeconfigPath, options.extra),
    ready: healthz(options.ports.scheduler),
  };
}

/** kwokSpec: ready when its kubelet API answers and every one of `nodes` is Ready. */
export function kwokSpec(
  kwok: KwokFiles,
  nodes: readonly string[],
  options: ControllerSpecOptions,
): ComponentSpec {
  const { ports, pki, kubeconfigPath, asAdmin } = options;
  return {
    name: 'kwok',
    command: kwok.kwok,
    args: kwokFlags({
      ports,
      pki,
      kubeconfigPath,
      stagesPath: kwok.stages,
      crdKinds: KWOK_CRD_KINDS,
      extra: options.extra,
    }),
    ready: async () =>
      (
        await kubeRequest({
          server: `https://${NODE_ADDRESS}:${ports.kubelet}`,
          path: '/healthz',
          caPem: pki.caPem,
          timeoutMs: 1000,
        })
      ).status === 200 && (await nodesReady(asAdmin, nodes)),
  };
}

/** AdminRequest is where and as whom the start's own requests go (the admin user). */
export type AdminRequest = Pick<
  Parameters<typeof kubeRequest>[0],
  'server' | 'caPem' | 'credentials'
>;

/**
 * installCrds creates the CustomResourceDefinitions of a multi-document YAML file (an existing one
 * is kept) and waits until each is Established, so a client that starts next finds them served.
 */
export async function installCrds(
  asAdmin: AdminRequest,
  path: string,
  deadline: number,
): Promise<void> {
  const documents = splitDocuments(await readFile(path, 'utf8'));
  const names = await Promise.all(
    documents.map(async (document) => {
      const response = await kubeRequest({
        ...asAdmin,
        path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
        method: 'POST',
        yamlBody: document,
      });
      const name = /^\s+name:\s*(\S+)/m.exec(document)?.[1];
      if ((response.status !== 201 && response.status !== 409) || !name) {
        throw new ControlPlaneError(
          'PROVISION_FAILED',
          `creating CustomResourceDefinition ${name ?? '?'} returned ${response.status}`,
          { step: 'install kwok CRDs', logTail: response.body },
        );
      }
      return name;
    }),
  );
  for (const name of names) {
    for (;;) {
      const response = await kubeRequest({
        ...asAdmin,
        path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
      });
      const conditions =
        response.status === 200
          ? ((JSON.parse(response.body) as { status?: { conditions?: Condition[] } }).status
              ?.conditions ?? [])
          : [];
      if (conditions.some((entry) => entry.type === 'Established' && entry.status === 'True'))
        break;
      if (Date.now() > deadline) {
        throw new ControlPlaneError(
          'READY_TIMEOUT',
          `CustomResourceDefinition ${name} was not Established in time`,
          { step: 'install kwok CRDs', logTail: response.body },
        );
      }
      await sleep(50);
    }
  }
}

interface Condition {
  readonly type: string;
  readonly status: string;
}

/** createNodes creates the fake Nodes kwok manages (by annotation), labeled like real ones. */
export async function createNodes(asAdmin: AdminRequest, names: readonly string[]): Promise<void> {
  await Promise.all(
    names.map(async (name) => {
      const response = await kubeRequest({
        ...asAdmin,
        path: '/api/v1/nodes',
        method: 'POST',
        body: {
          apiVersion: 'v1',
          kind: 'Node',
          metadata: {
            name,
            annotations: { [KWOK_NODE_ANNOTATION]: 'fake' },
            labels: {
              'kubernetes.io/hostname': name,
              'kubernetes.io/os': 'linux',
              'kubernetes.io/arch': 'amd64',
              'k-testenv/node': 'kwok',
            },
          },
        },
      });
      if (response.status !== 201) {
        throw new ControlPlaneError(
          'PROVISION_FAILED',
          `creating Node ${name} returned ${response.status}`,
          { step: 'create nodes', logTail: response.body },
        );
      }
    }),
  );
}

/** nodesReady is true when every named Node has the condition Ready=True. */
async function nodesReady(asAdmin: AdminRequest, names: readonly string[]): Promise<boolean> {
  const response = await kubeRequest({
    ...asAdmin,
    path: '/api/v1/nodes?labelSelector=k-testenv%2Fnode%3Dkwok',
  });
  if (response.status !== 200) return false;
  const items = (
    JSON.parse(response.body) as {
      items: { metadata: { name: string }; status?: { conditions?: Condition[] } }[];
    }
  ).items;
  return names.every((name) =>
    items
      .find((node) => node.metadata.name === name)
      ?.status?.conditions?.some((entry) => entry.type === 'Ready' && entry.status === 'True'),
  );
}
