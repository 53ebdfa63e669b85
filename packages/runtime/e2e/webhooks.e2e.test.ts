import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import {
  ApiError,
  type Clientset,
  type DynamicResourceClient,
  type UnstructuredObject,
} from '@k/clientset';
import type { ValidatingWebhookConfiguration } from '@k/clientset/admissionregistration/v1';
import type { CustomResourceDefinition } from '@k/clientset/apiextensions/v1';
import type { WebhookServing } from '@k/envtest';
import { useEnvironment, useTestNamespace } from '@k/envtest/vitest';
import { runCommand, type CommandResult } from '@k/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdmissionDenied, Manager, SILENT_LOGGER } from '../src/index.js';
import type { AdmissionRequest, WebhookServer } from '../src/webhook.js';
import { eventually } from './helpers.js';

// k's webhook server, run by a Manager, called by the real kube-apiserver of the run's plane on
// 127.0.0.1 (@k/envtest points the configurations and the CRD's conversion at it). Every
// admission webhook here matches only this file's namespace, so other files never reach it.
const env = useEnvironment();
const run = randomUUID().slice(0, 8);
// Tests get a namespace each: the webhooks select them by this label.
const NAMESPACE_LABEL = 'k-runtime-webhooks-e2e';
const testNamespace = useTestNamespace({
  prefix: 'runtime-webhooks',
  labels: { [NAMESPACE_LABEL]: run },
});
const group = `g${run}.webhooks.k-runtime.test`;

/** Gadget v1beta1 (the hub and the storage version): a size in units and a colour. */
interface Gadget extends UnstructuredObject {
  spec?: { size?: number; color?: string; note?: string };
}
/** Gadget v1alpha1 (a spoke): the size as a word. */
interface GadgetV1alpha1 extends UnstructuredObject {
  spec?: { sizeName?: 'small' | 'large'; color?: string; note?: string };
}

const gadgetCrd = (): CustomResourceDefinition => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gadgets.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    conversion: { strategy: 'Webhook' },
    versions: ['v1alpha1', 'v1beta1'].map((name) => ({
      name,
      served: true,
      storage: name === 'v1beta1',
      schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
    })),
  },
});

let admin: Clientset;
let serving: WebhookServing;
let manager: Manager;
let webhooks: WebhookServer;
const stop = new AbortController();
let running: Promise<void>;
/** Admission requests the handlers saw, by object name. */
const seen = new Map<string, AdmissionRequest<Gadget>[]>();
/** desiredAPIVersions of the conversion requests. */
const conversions: string[] = [];

function record(request: AdmissionRequest<Gadget>): void {
  const name = request.name || request.object?.metadata?.name || '';
  seen.set(name, [...(seen.get(name) ?? []), request]);
}

let clients: Record<'v1alpha1' | 'v1beta1', DynamicResourceClient>;

/** gadgets is the Gadget client of `version` in the test's namespace. */
function gadgets(version: 'v1alpha1' | 'v1beta1'): DynamicResourceClient {
  return clients[version].inNamespace(testNamespace.name);
}

beforeAll(async () => {
  admin = await env.admin.clientset({ userAgent: 'runtime-webhooks-e2e' });
  serving = await env.webhookServing();
  manager = new Manager({
    clientset: admin,
    probes: false,
    metricsServer: false,
    logger: SILENT_LOGGER,
  });
  webhooks = manager.webhookServer({
    host: '127.0.0.1',
    port: serving.port,
    certificate: { certFile: serving.certPath, keyFile: serving.keyPath },
    certificateReloadIntervalMs: 200,
  });
  const crd = gadgetCrd();
  const gadgetResource = {
    group,
    version: 'v1beta1',
    kind: 'Gadget',
    plural: 'gadgets',
    namespaced: true,
  };
  webhooks
    .validating<Gadget>(
      gadgetResource,
      {
        create: (gadget, context) => {
          record(context.request);
          if ((gadget.spec?.size ?? 0) > 10) {
            throw new AdmissionDenied('a gadget is at most 10 units', {
              causes: [{ field: 'spec.size', message: 'must be at most 10' }],
            });
          }
          if (gadget.metadata?.name?.startsWith('forbidden-')) {
            throw new AdmissionDenied('gadgets named forbidden-… are refused');
          }
          if (gadget.spec?.note === 'warn') context.warn('the note says warn');
        },
        update: (gadget, old, context) => {
          record(context.request);
          if (gadget.spec?.color !== old.spec?.color) {
            throw new AdmissionDenied('the colour of a gadget is fixed at creation');
          }
        },
      },
      {
        failurePolicy: 'Fail',
        namespaceSelector: onlyThisNamespace(),
        objectSelector: { matchExpressions: [{ key: 'slow', operator: 'DoesNotExist' }] },
      },
    )
    .mutating<Gadget>(
      gadgetResource,
      {
        mutate: (gadget) => {
          gadget.spec = { ...gadget.spec, color: gadget.spec?.color ?? 'blue' };
          gadget.metadata = {
            ...gadget.metadata,
            labels: { ...gadget.metadata?.labels, 'defaulted-by': 'k' },
          };
        },
      },
      {
        namespaceSelector: onlyThisNamespace(),
        objectSelector: { matchExpressions: [{ key: 'slow', operator: 'DoesNotExist' }] },
      },
    )
    .conversion<Gadget>({
      group,
      kind: 'Gadget',
      plural: 'gadgets',
      hub: 'v1beta1',
      spokes: {
        v1alpha1: {
          toHub: (old: GadgetV1alpha1): Gadget => {
            conversions.push('v1beta1');
            const { sizeName, ...rest } = old.spec ?? {};
            return {
              ...old,
              spec: { ...rest, ...(sizeName ? { size: sizeName === 'large' ? 8 : 2 } : {}) },
            };
          },
          fromHub: (hub: Gadget): GadgetV1alpha1 => {
            conversions.push('v1alpha1');
            const { size, ...rest } = hub.spec ?? {};
            return {
              ...hub,
              spec: {
                ...rest,
                ...(size !== undefined ? { sizeName: size > 4 ? 'large' : 'small' } : {}),
              },
            };
          },
        },
      },
    });
  // For the failure policies: one that answers after the API server gave up, one that fails.
  webhooks
    .handle('/slow', async (call) => {
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      return { status: 200, body: allowedReview(call.body) };
    })
    .handle('/failing', () => Promise.resolve({ status: 500, body: { message: 'broken' } }));
  running = manager.start(stop.signal);
  await env.installCrds({ objects: [crd], conversion: { serving, path: '/convert' } });
  clients = {
    v1alpha1: await admin.dynamic.forKind(`${group}/v1alpha1`, 'Gadget'),
    v1beta1: await admin.dynamic.forKind(`${group}/v1beta1`, 'Gadget'),
  };
  const configurations = webhooks.configurations({
    name: `runtime-webhooks-${group}`,
    target: { url: serving.url('') },
    caBundle: serving.caBundle,
  });
  await env.installWebhooks({
    serving,
    validating: [
      ...(configurations.validating ? [configurations.validating] : []),
      failurePolicies(),
    ],
    mutating: configurations.mutating ? [configurations.mutating] : [],
  });
  scratch = await mkdtemp(path.join(tmpdir(), 'runtime-webhooks-'));
});

let scratch: string;

/** allowedReview allows the review in `body` (for the raw handlers of the failure policies). */
function allowedReview(body: Uint8Array): unknown {
  const review = JSON.parse(Buffer.from(body).toString('utf8')) as { request: { uid: string } };
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: { uid: review.request.uid, allowed: true },
  };
}

/** failurePolicies: a webhook per policy and behaviour, for objects labelled `slow=<policy>-<behaviour>`. */
function failurePolicies(): ValidatingWebhookConfiguration {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: `runtime-webhooks-policies-${group}` },
    webhooks: (['Fail', 'Ignore'] as const).flatMap((failurePolicy) =>
      (['slow', 'failing'] as const).map((behaviour) => ({
        name: `${failurePolicy.toLowerCase()}-${behaviour}.${group}`,
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy,
        timeoutSeconds: 1,
        clientConfig: { url: serving.url(`/${behaviour}`), caBundle: serving.caBundle },
        rules: [
          {
            operations: ['CREATE'],
            apiGroups: [group],
            apiVersions: ['v1beta1'],
            resources: ['gadgets'],
          },
        ],
        namespaceSelector: onlyThisNamespace(),
        objectSelector: { matchLabels: { slow: `${failurePolicy.toLowerCase()}-${behaviour}` } },
      })),
    ),
  };
}

/** kubectlCreate creates `object` with kubectl as admin (extra flags after `create`). */
async function kubectlCreate(object: Gadget, ...flags: string[]): Promise<CommandResult> {
  const file = path.join(scratch, `${object.metadata!.name!}.json`);
  await writeFile(file, JSON.stringify(object));
  return runCommand(
    'kubectl',
    [
      '--kubeconfig',
      env.admin.kubeconfigPath,
      '-n',
      testNamespace.name,
      'create',
      ...flags,
      '-f',
      file,
    ],
    scratch,
  );
}

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
  stop.abort();
  await running;
  await admin?.apiextensionsV1
    .customResourceDefinitions()
    .delete(`gadgets.${group}`)
    .catch(() => undefined);
});

function onlyThisNamespace() {
  return { matchLabels: { [NAMESPACE_LABEL]: run } };
}

const gadget = (name: string, spec: Gadget['spec'], labels?: Record<string, string>): Gadget => ({
  apiVersion: `${group}/v1beta1`,
  kind: 'Gadget',
  metadata: { name, ...(labels ? { labels } : {}) },
  spec,
});

/** created creates once the configurations are live (kube-apiserver loads them from an informer). */
async function createWhenLive(object: Gadget): Promise<UnstructuredObject> {
  return eventually(async () => {
    const stored = await gadgets('v1beta1').create(object);
    expect(seen.has(object.metadata!.name!)).toBe(true);
    return stored;
  });
}

describe('webhooks served by a Manager, called by kube-apiserver', () => {
  it('stores the object as the mutating webhook changed it (JSON Patch computed by the server)', async () => {
    const stored = await createWhenLive(gadget(`mutated-${Date.now().toString(36)}`, { size: 3 }));
    expect(stored.spec).toEqual({ size: 3, color: 'blue' });
    expect(stored.metadata?.labels).toEqual({ 'defaulted-by': 'k' });
  });

  it('denies a create with the reason and the field, in the ApiError and in kubectl stderr', async () => {
    await createWhenLive(gadget(`first-${Date.now().toString(36)}`, { size: 1 }));
    const error = await gadgets('v1beta1')
      .create(gadget('too-big', { size: 11 }))
      .then(
        () => undefined,
        (failure: unknown) => failure,
      );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).statusCode).toBe(422);
    expect((error as ApiError).message).toContain('a gadget is at most 10 units');
    expect(JSON.stringify((error as ApiError).details?.causes)).toContain('spec.size');

    // kubectl shows an Invalid (422) denial by its causes, a Forbidden (403) one by its message.
    const invalid = await kubectlCreate(gadget('too-big-kubectl', { size: 12 }));
    expect(invalid.status).not.toBe(0);
    expect(invalid.stderr).toContain('The request is invalid: spec.size: must be at most 10');
    const forbidden = await kubectlCreate(gadget('forbidden-kubectl', { size: 1 }));
    expect(forbidden.status).not.toBe(0);
    expect(forbidden.stderr).toContain(
      `admission webhook "validate.gadgets.${group}" denied the request: gadgets named forbidden-… are refused`,
    );
  });

  it('denies an update the validating handler refuses, comparing old and new', async () => {
    const name = `fixed-${Date.now().toString(36)}`;
    const created = await createWhenLive(gadget(name, { size: 2, color: 'red' }));
    const error = await gadgets('v1beta1')
      .update({ ...created, spec: { size: 2, color: 'green' } })
      .then(
        () => undefined,
        (failure: unknown) => failure,
      );
    expect((error as ApiError).statusCode).toBe(403);
    expect((error as ApiError).message).toContain('the colour of a gadget is fixed at creation');
    const updates = (seen.get(name) ?? []).filter((request) => request.operation === 'UPDATE');
    expect(updates.at(-1)?.oldObject?.spec?.color).toBe('red');
  });

  it('passes a handler warning to the client', async () => {
    const name = `warned-${Date.now().toString(36)}`;
    await createWhenLive(gadget(`probe-${Date.now().toString(36)}`, { size: 1 }));
    const created = await kubectlCreate(gadget(name, { size: 1, note: 'warn' }));
    expect(created.stdout, created.stderr).toContain(`gadget.${group}/${name} created`);
    expect(created.stderr).toContain('Warning: the note says warn');
  });

  it('flags a dry-run create to the handlers and stores nothing', async () => {
    await createWhenLive(gadget(`probe-${Date.now().toString(36)}`, { size: 1 }));
    const name = `dry-${Date.now().toString(36)}`;
    await gadgets('v1beta1').create(gadget(name, { size: 1 }), { dryRun: 'All' });
    expect(seen.get(name)?.map((request) => request.dryRun)).toEqual([true]);
    const read = await gadgets('v1beta1')
      .get(name)
      .then(
        () => 'found',
        (failure: ApiError) => failure.statusCode,
      );
    expect(read).toBe(404);
  });

  it('converts: a v1alpha1 object is stored as v1beta1 and reads back as either version', async () => {
    const name = `converted-${Date.now().toString(36)}`;
    const alpha: GadgetV1alpha1 = {
      apiVersion: `${group}/v1alpha1`,
      kind: 'Gadget',
      metadata: { name },
      spec: { sizeName: 'large', color: 'red' },
    };
    await eventually(() => gadgets('v1alpha1').create(alpha));
    const asBeta = await gadgets('v1beta1').get(name);
    expect(asBeta.apiVersion).toBe(`${group}/v1beta1`);
    expect(asBeta.spec).toEqual({ size: 8, color: 'red' });
    const asAlpha = await gadgets('v1alpha1').get(name);
    expect(asAlpha.spec).toEqual({ sizeName: 'large', color: 'red' });
    expect(conversions).toContain('v1beta1');
    expect(conversions).toContain('v1alpha1');
    const crd = await admin.apiextensionsV1.customResourceDefinitions().get(`gadgets.${group}`);
    expect(crd.status?.storedVersions).toEqual(['v1beta1']);
  });

  it('keeps answering while its certificate is rotated, and serves the new one to new connections', async () => {
    await createWhenLive(gadget(`probe-${Date.now().toString(36)}`, { size: 1 }));
    const before = await servedFingerprint();
    const creates: Promise<unknown>[] = [];
    for (let index = 0; index < 20; index += 1) {
      creates.push(
        gadgets('v1beta1').create(
          gadget(`rotating-${index}-${Date.now().toString(36)}`, { size: 1 }),
        ),
      );
      if (index === 5) await serving.rotate();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const results = await Promise.allSettled(creates);
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    await eventually(async () => expect(await servedFingerprint()).not.toBe(before));
  });
});

describe('failure policies, as Kubernetes documents them', () => {
  /** createLabelled creates a gadget with a fresh name labelled `slow=<label>` and returns the error, if any. */
  const createLabelled = (label: string) =>
    gadgets('v1beta1')
      .create(gadget(`policy-${label}-${randomUUID().slice(0, 8)}`, { size: 1 }, { slow: label }))
      .then(
        () => undefined,
        (failure: unknown) => failure,
      );

  it.each(['slow', 'failing'] as const)(
    'a %s webhook refuses the request under Fail and is skipped under Ignore',
    async (behaviour) => {
      // Fail: once kube-apiserver has the configuration, every create is refused.
      const error = await eventually(async () => {
        const failure = await createLabelled(`fail-${behaviour}`);
        expect(failure).toBeInstanceOf(ApiError);
        return failure as ApiError;
      });
      expect(error.message).toContain(`failed calling webhook "fail-${behaviour}.${group}"`);
      // Ignore, in the same configuration (so it is live too): the create goes through.
      expect(await createLabelled(`ignore-${behaviour}`)).toBeUndefined();
    },
  );
});

/** servedFingerprint is the SHA-256 of the certificate a new TLS connection to the server gets. */
function servedFingerprint(): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect(
      { host: '127.0.0.1', port: serving.port, ca: serving.caPem, servername: 'localhost' },
      () => {
        const raw = socket.getPeerCertificate().raw;
        socket.end();
        resolve(createHash('sha256').update(raw).digest('hex'));
      },
    );
    socket.once('error', reject);
  });
}
