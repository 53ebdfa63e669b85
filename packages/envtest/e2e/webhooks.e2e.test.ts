import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ApiError, type Clientset } from '@k/clientset';
import type {
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
} from '@k/clientset/admissionregistration/v1';
import { kubeRequest, readControlPlaneState } from '@k/testenv';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connectEnvironment, eventually } from '../src/index.js';
import type { InstalledCrds, InstalledWebhooks, WebhookServing } from '../src/types.js';
import { useEnvironment, useTestNamespace } from '../src/vitest/index.js';
import {
  allow,
  deny,
  startWebhookServer,
  type AdmissionRequest,
  type ConversionRequest,
  type WebhookServer,
} from './fixtures/webhook-server.js';

const execFileAsync = promisify(execFile);

// kube-apiserver of the run's shared plane calls a node:https server of this test on 127.0.0.1.
// Every webhook here matches only the test's own namespace (namespaceSelector), so the other
// files on the shared plane never reach it.
const env = useEnvironment();
const testNamespace = useTestNamespace({ prefix: 'envtest-webhooks' });
let clientset: Clientset;
let namespace: string;

beforeAll(async () => {
  clientset = await env.admin.clientset({ userAgent: 'envtest-webhooks-e2e' });
});
beforeEach(() => {
  namespace = testNamespace.name;
});

/** onlyThisNamespace limits a webhook to this file's namespace. */
const onlyThisNamespace = () => ({
  namespaceSelector: {
    matchExpressions: [
      { key: 'kubernetes.io/metadata.name', operator: 'In' as const, values: [namespace] },
    ],
  },
});

function validatingConfiguration(
  name: string,
  path: string,
  extra: Partial<NonNullable<ValidatingWebhookConfiguration['webhooks']>[number]> = {},
): ValidatingWebhookConfiguration {
  return {
    metadata: { name: `${name}-${namespace}` },
    webhooks: [
      {
        name: `${name}.envtest.example.com`,
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        timeoutSeconds: 5,
        clientConfig: { service: { name: 'webhook-service', namespace: 'system', path } },
        rules: [
          {
            operations: ['CREATE'],
            apiGroups: [''],
            apiVersions: ['v1'],
            resources: ['configmaps'],
          },
        ],
        ...onlyThisNamespace(),
        ...extra,
      },
    ],
  };
}

let serving: WebhookServing;
let server: WebhookServer;
const installed: InstalledWebhooks[] = [];

beforeAll(async () => {
  serving = await env.webhookServing();
  server = await startWebhookServer({
    certPath: serving.certPath,
    keyPath: serving.keyPath,
    port: serving.port,
    handlers: {
      '/validate': {
        admission: (request) =>
          request.name?.startsWith('denied-')
            ? deny(
                `names starting with denied- are refused by the envtest e2e webhook (${request.name})`,
              )
            : allow(),
      },
      '/mutate': {
        admission: (request) => ({
          allowed: true,
          patch: request.object?.metadata?.labels
            ? [{ op: 'add', path: '/metadata/labels/mutated-by', value: 'envtest-webhook' }]
            : [{ op: 'add', path: '/metadata/labels', value: { 'mutated-by': 'envtest-webhook' } }],
        }),
      },
      '/record': { admission: () => allow() },
    },
  });
});
afterAll(async () => {
  await server?.close();
});
afterEach(async () => {
  for (const webhooks of installed.splice(0)) await webhooks.uninstall();
});

const configMap = (name: string) => ({ metadata: { name }, data: { key: 'value' } });

describe('admission webhooks on the real kube-apiserver', () => {
  it('a validating webhook denies a create, with its reason in the ApiError and in kubectl stderr', async () => {
    installed.push(
      await env.installWebhooks({
        serving,
        validating: [validatingConfiguration('deny', '/validate')],
      }),
    );
    const error = await eventually(async () => {
      const caught = await clientset.coreV1
        .configMaps(namespace)
        .create(configMap(`denied-${Date.now().toString(36)}`))
        .then(
          () => undefined,
          (failure: unknown) => failure,
        );
      expect(caught).toBeInstanceOf(ApiError);
      return caught as ApiError;
    });
    expect(error.statusCode).toBe(403);
    expect(error.message).toContain(
      'names starting with denied- are refused by the envtest e2e webhook',
    );
    expect(error.message).toContain('deny.envtest.example.com');
    await clientset.coreV1.configMaps(namespace).create(configMap('allowed'));
    const kubectl = await execFileAsync('kubectl', [
      '--kubeconfig',
      env.admin.kubeconfigPath,
      'create',
      'configmap',
      'denied-by-kubectl',
      '-n',
      namespace,
    ]).then(
      () => ({ stderr: '' }),
      (failure: { stderr: string }) => failure,
    );
    expect(kubectl.stderr).toContain(
      'names starting with denied- are refused by the envtest e2e webhook',
    );
  });

  it('a mutating webhook adds a label to the stored object (JSONPatch)', async () => {
    const mutating: MutatingWebhookConfiguration = {
      ...validatingConfiguration('mutate', '/mutate'),
    } as MutatingWebhookConfiguration;
    installed.push(await env.installWebhooks({ serving, mutating: [mutating] }));
    const stored = await eventually(async () => {
      const name = `mutated-${Date.now().toString(36)}`;
      await clientset.coreV1.configMaps(namespace).create(configMap(name));
      const read = await clientset.coreV1.configMaps(namespace).get(name);
      expect(read.metadata?.labels?.['mutated-by']).toBe('envtest-webhook');
      return read;
    });
    expect(stored.data).toEqual({ key: 'value' });
  });

  it('a dry-run create reaches the handler with dryRun: true and stores nothing', async () => {
    installed.push(
      await env.installWebhooks({
        serving,
        validating: [validatingConfiguration('record', '/record')],
      }),
    );
    // The first calls after an install may come before kube-apiserver has the configuration.
    await eventually(async () => {
      const before = server.received.length;
      await clientset.coreV1
        .configMaps(namespace)
        .create(configMap(`probe-${Date.now().toString(36)}`));
      expect(server.received.length).toBeGreaterThan(before);
    });
    const name = `dry-${Date.now().toString(36)}`;
    await clientset.coreV1.configMaps(namespace).create(configMap(name), { dryRun: 'All' });
    const seen = server.received
      .map((entry) => entry.request as AdmissionRequest)
      .find((request) => request.name === name);
    expect(seen?.dryRun).toBe(true);
    expect(seen?.operation).toBe('CREATE');
    await expect(clientset.coreV1.configMaps(namespace).get(name)).rejects.toMatchObject({
      statusCode: 404,
    });
  });

  it('failurePolicy Fail with the server closed refuses the create: kube-apiserver really calls it', async () => {
    const own = await env.webhookServing();
    const ownServer = await startWebhookServer({
      certPath: own.certPath,
      keyPath: own.keyPath,
      port: own.port,
      handlers: { '/validate': { admission: () => allow() } },
    });
    installed.push(
      await env.installWebhooks({
        serving: own,
        validating: [validatingConfiguration('closed', '/validate')],
      }),
    );
    await eventually(async () => {
      const before = ownServer.received.length;
      await clientset.coreV1
        .configMaps(namespace)
        .create(configMap(`open-${Date.now().toString(36)}`));
      expect(ownServer.received.length).toBeGreaterThan(before);
    });
    await ownServer.close();
    const error = await clientset.coreV1
      .configMaps(namespace)
      .create(configMap('refused'))
      .then(
        () => undefined,
        (failure: unknown) => failure,
      );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toMatch(
      /failed calling webhook "closed\.envtest\.example\.com"/,
    );
    expect((error as ApiError).message).toMatch(/connection refused/);
    await own.close();
  });
});

describe('installWebhooks from manifest files', () => {
  it("reads kubebuilder's config/webhook/manifests.yaml from a directory and points its services at the server", async () => {
    const directory = await mkdtemp(path.join(tmpdir(), 'envtest-webhook-manifests-'));
    try {
      const selector = `{ matchExpressions: [{ key: kubernetes.io/metadata.name, operator: In, values: [${namespace}] }] }`;
      await writeFile(
        path.join(directory, 'manifests.yaml'),
        [
          'apiVersion: admissionregistration.k8s.io/v1',
          'kind: MutatingWebhookConfiguration',
          'metadata:',
          `  name: mutating-webhook-configuration-${namespace}`,
          'webhooks:',
          '- admissionReviewVersions: [v1]',
          '  clientConfig:',
          '    service: { name: webhook-service, namespace: system, path: /mutate }',
          '  failurePolicy: Fail',
          '  name: mconfigmap.envtest.example.com',
          `  namespaceSelector: ${selector}`,
          "  rules: [{ apiGroups: [''], apiVersions: [v1], operations: [CREATE], resources: [configmaps] }]",
          '  sideEffects: None',
          '---',
          'apiVersion: admissionregistration.k8s.io/v1',
          'kind: ValidatingWebhookConfiguration',
          'metadata:',
          `  name: validating-webhook-configuration-${namespace}`,
          'webhooks:',
          '- admissionReviewVersions: [v1]',
          '  clientConfig:',
          '    service: { name: webhook-service, namespace: system, path: /validate }',
          '  failurePolicy: Fail',
          '  name: vconfigmap.envtest.example.com',
          `  namespaceSelector: ${selector}`,
          "  rules: [{ apiGroups: [''], apiVersions: [v1], operations: [CREATE], resources: [configmaps] }]",
          '  sideEffects: None',
          '---',
          'apiVersion: v1',
          'kind: Service',
          'metadata: { name: webhook-service, namespace: system }',
          'spec: { ports: [{ port: 443, targetPort: 9443 }] }',
          '',
        ].join('\n'),
      );
      await writeFile(path.join(directory, 'kustomization.txt'), 'not a manifest: {');
      const webhooks = await env.installWebhooks({ serving, paths: [directory] });
      installed.push(webhooks);
      expect(webhooks.names).toEqual([
        `mutating-webhook-configuration-${namespace}`,
        `validating-webhook-configuration-${namespace}`,
      ]);
      const validating = await clientset.admissionregistrationV1
        .validatingWebhookConfigurations()
        .get(`validating-webhook-configuration-${namespace}`);
      expect(validating.webhooks?.[0]?.clientConfig).toEqual({
        url: serving.url('/validate'),
        caBundle: serving.caBundle,
      });
      const denied = await eventually(async () => {
        const caught = await clientset.coreV1
          .configMaps(namespace)
          .create(configMap(`denied-${Date.now().toString(36)}`))
          .then(
            () => undefined,
            (failure: unknown) => failure,
          );
        expect(caught).toBeInstanceOf(ApiError);
        return caught as ApiError;
      });
      expect(denied.message).toContain('vconfigmap.envtest.example.com');
      const stored = await clientset.coreV1.configMaps(namespace).create(configMap('mutated'));
      expect(stored.metadata?.labels?.['mutated-by']).toBe('envtest-webhook');
      await webhooks.uninstall();
      await expect(
        clientset.admissionregistrationV1
          .validatingWebhookConfigurations()
          .get(`validating-webhook-configuration-${namespace}`),
      ).rejects.toMatchObject({ statusCode: 404 });
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe('close()', () => {
  it("uninstalls the handle's webhook configurations and removes its servings' files", async () => {
    const handle = connectEnvironment(env.kubeconfigPath);
    const own = await handle.webhookServing();
    const name = `closed-by-handle-${namespace}`;
    await handle.installWebhooks({
      serving: own,
      validating: [{ ...validatingConfiguration('handle', '/validate'), metadata: { name } }],
    });
    const configurations = clientset.admissionregistrationV1.validatingWebhookConfigurations();
    expect((await configurations.get(name)).metadata?.name).toBe(name);
    await handle.close();
    await expect(configurations.get(name)).rejects.toMatchObject({ statusCode: 404 });
    await expect(stat(path.dirname(own.certPath))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('conversion webhook', () => {
  const group = 'webhooks.envtest.example.com';
  let conversionServer: WebhookServer;
  let conversionServing: WebhookServing;
  let crds: InstalledCrds | undefined;

  const convert = (request: ConversionRequest) =>
    request.objects.map((object) => {
      const spec = (object.spec ?? {}) as { size?: string; replicas?: number };
      const metadata = object.metadata;
      if (request.desiredAPIVersion === `${group}/v1beta1`)
        return {
          apiVersion: request.desiredAPIVersion,
          kind: 'Gadget',
          metadata,
          spec: { replicas: Number(spec.size) },
        };
      return {
        apiVersion: request.desiredAPIVersion,
        kind: 'Gadget',
        metadata,
        spec: { size: String(spec.replicas) },
      };
    });

  beforeAll(async () => {
    conversionServing = await env.webhookServing();
    conversionServer = await startWebhookServer({
      certPath: conversionServing.certPath,
      keyPath: conversionServing.keyPath,
      port: conversionServing.port,
      handlers: { '/convert': { conversion: convert } },
    });
    // kubebuilder's service reference, pointed at this server by crds.conversion.
    crds = await env.installCrds({
      paths: [fileURLToPath(new URL('fixtures/multi-version-crd.yaml', import.meta.url))],
      conversion: { serving: conversionServing },
    });
  });
  afterAll(async () => {
    await crds?.uninstall();
    await conversionServer?.close();
  });

  it('reads a v1alpha1-stored object as v1beta1 through /convert; etcd keeps v1alpha1', async () => {
    const alpha = clientset.dynamic.resource(
      { group, version: 'v1alpha1', resource: 'gadgets' },
      namespace,
    );
    const beta = clientset.dynamic.resource(
      { group, version: 'v1beta1', resource: 'gadgets' },
      namespace,
    );
    // In the storage version: no conversion needed, and installCrds waited until it is served.
    await alpha.create({
      apiVersion: `${group}/v1alpha1`,
      kind: 'Gadget',
      metadata: { name: 'stored-alpha' },
      spec: { size: '3' },
    });
    // kube-apiserver builds the CRD's conversion client when it serves the new spec.
    const read = await eventually(() => beta.get('stored-alpha'));
    expect(read.apiVersion).toBe(`${group}/v1beta1`);
    expect(read.spec).toEqual({ replicas: 3 });
    const reviews = conversionServer.received.map((entry) => entry.request as ConversionRequest);
    expect(reviews.some((review) => review.desiredAPIVersion === `${group}/v1beta1`)).toBe(true);

    // Written as v1beta1, stored as v1alpha1 (the storage version), converted on the way in.
    await beta.create({
      apiVersion: `${group}/v1beta1`,
      kind: 'Gadget',
      metadata: { name: 'written-beta' },
      spec: { replicas: 5 },
    });
    const stored = await etcdObject(`/registry/${group}/gadgets/${namespace}/written-beta`);
    expect(stored.apiVersion).toBe(`${group}/v1alpha1`);
    expect(stored.spec).toEqual({ size: '5' });
    const crd = await clientset.apiextensionsV1.customResourceDefinitions().get(`gadgets.${group}`);
    expect(crd.status?.storedVersions).toEqual(['v1alpha1']);
    expect(crd.spec.conversion?.webhook?.clientConfig?.url).toBe(conversionServing.url('/convert'));
    // While the server still runs: the namespace's deletion would need it to list them.
    await alpha.delete('stored-alpha');
    await beta.delete('written-beta');
  });
});

/** etcdObject reads a stored object straight from etcd (its JSON gateway), as kube-apiserver wrote it. */
async function etcdObject(
  key: string,
): Promise<Record<string, unknown> & { apiVersion?: string; spec?: unknown }> {
  const response = await kubeRequest({
    server: `http://127.0.0.1:${readControlPlaneState(env.kubeconfigPath).ports.etcd}`,
    path: '/v3/kv/range',
    method: 'POST',
    body: { key: Buffer.from(key).toString('base64') },
  });
  const value = (JSON.parse(response.body) as { kvs?: { value: string }[] }).kvs?.[0]?.value;
  if (value === undefined) throw new Error(`etcd has no ${key}`);
  return JSON.parse(Buffer.from(value, 'base64').toString('utf8')) as Record<string, unknown>;
}

describe('certificate rotation', () => {
  it('rotate() under a reloading server drops none of 50 creates', async () => {
    const rotating = await env.webhookServing();
    const reloading = await startWebhookServer({
      certPath: rotating.certPath,
      keyPath: rotating.keyPath,
      port: rotating.port,
      reload: true,
      closeConnections: true,
      handlers: { '/validate': { admission: () => allow() } },
    });
    try {
      installed.push(
        await env.installWebhooks({
          serving: rotating,
          validating: [
            validatingConfiguration('rotate', '/validate', {
              objectSelector: { matchLabels: { 'envtest-rotation': 'true' } },
            }),
          ],
        }),
      );
      await eventually(async () => {
        const before = reloading.received.length;
        await clientset.coreV1.configMaps(namespace).create({
          metadata: {
            name: `warm-${Date.now().toString(36)}`,
            labels: { 'envtest-rotation': 'true' },
          },
        });
        expect(reloading.received.length).toBeGreaterThan(before);
      });
      const firstSerial = await servedSerial(rotating.port);
      const before = reloading.received.length;
      const rotations: Promise<void>[] = [];
      for (let index = 0; index < 50; index += 1) {
        if (index % 10 === 5) rotations.push(rotating.rotate());
        await clientset.coreV1.configMaps(namespace).create({
          metadata: { name: `rotation-${index}`, labels: { 'envtest-rotation': 'true' } },
        });
      }
      await Promise.all(rotations);
      expect(reloading.received.length - before).toBe(50);
      expect(reloading.reloads()).toBeGreaterThanOrEqual(1);
      const lastSerial = normalSerial(new X509Certificate(rotating.certPem).serialNumber);
      await eventually(async () => expect(await servedSerial(rotating.port)).toBe(lastSerial));
      expect(await servedSerial(rotating.port)).not.toBe(firstSerial);
    } finally {
      await reloading.close();
    }
  });
});

/** servedSerial is the serial of the certificate a new TLS connection to 127.0.0.1:`port` gets. */
function servedSerial(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const serial = normalSerial(socket.getPeerCertificate().serialNumber);
      socket.destroy();
      resolve(serial);
    });
    socket.on('error', reject);
  });
}

const normalSerial = (serial: string) => serial.toUpperCase().replace(/^0+/, '');
