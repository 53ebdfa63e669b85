import { inferClientset, isInvalid, type ApiError, type Clientset } from '@k/clientset';
import { useEnvironment } from '@k/envtest/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAppsClient as createV1alpha1Client } from '../src/generated/web-app-v1alpha1.js';
import { createWebAppsClient } from '../src/generated/web-app-v1beta1.js';
import { WEBHOOK_CONFIGURATION_NAME } from '../src/webhooks/register-webhooks.js';
import { installCrd, startOperator, webApp, type RunningOperator } from './helpers.js';

// The webhooks are cluster-wide (the CRD's conversion, configurations for every namespace): on a
// control plane of their own, so no other test file's WebApps go through this file's operator.
const plane = useEnvironment({
  own: true,
  binaries: 'cache',
  nodes: 0,
  controllerManager: false,
  scheduler: false,
});
const NAMESPACE = 'shop';
let cs: Clientset;
let running: RunningOperator;

beforeAll(async () => {
  cs = await inferClientset({
    kubeconfig: plane.kubeconfigPath,
    context: 'admin',
    throttle: 'off',
  });
  await installCrd(cs, { conversion: false });
  await cs.coreV1
    .namespaces()
    .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
  running = await startOperator(
    NAMESPACE,
    ['--webhook-bind-address=127.0.0.1:0'],
    plane.kubeconfigPath,
    {
      webhookCertificate: { selfSigned: { hosts: ['127.0.0.1'] } },
    },
  );
  const webhooks = running.operator.webhooks!;
  await webhooks.install(cs, {
    name: WEBHOOK_CONFIGURATION_NAME,
    target: { url: running.operator.manager.addresses.webhook!.url },
    caBundle: webhooks.certificateAuthority!.caBundle,
  });
}, 120_000);

afterAll(async () => {
  await running?.stop();
  await cs?.close();
});

describe('the operator’s webhooks, called by the real API server', () => {
  it('refuses a WebApp whose name another team’s Service has, with the webhook’s reason on metadata.name', async () => {
    await cs.coreV1
      .services(NAMESPACE)
      .create({ metadata: { name: 'taken' }, spec: { ports: [{ port: 80 }] } });
    const error = (await createWebAppsClient(cs.rest, NAMESPACE)
      .create(webApp('taken'))
      .then(
        () => undefined,
        (failure: unknown) => failure,
      )) as ApiError;
    expect(isInvalid(error)).toBe(true);
    expect(error.message).toMatch(
      /a Service named taken already exists in the namespace and no WebApp controls it/,
    );
    expect(error.status?.details?.causes).toContainEqual(
      expect.objectContaining({ field: 'metadata.name' }),
    );
  });

  it('converts a v1alpha1 WebApp: stored and read as v1beta1, read back as v1alpha1 as written, memory limited to its request', async () => {
    const written = await createV1alpha1Client(cs.rest, NAMESPACE).create({
      apiVersion: 'apps.k.example/v1alpha1',
      kind: 'WebApp',
      metadata: { name: 'legacy' },
      spec: { image: 'nginx:1.27', replicas: 1, resources: { requests: { memory: '32Mi' } } },
    });
    expect(written.spec).toMatchObject({
      image: 'nginx:1.27',
      resources: { limits: { memory: '32Mi' } },
    });
    const hub = await createWebAppsClient(cs.rest, NAMESPACE).get('legacy');
    expect(hub.apiVersion).toBe('apps.k.example/v1beta1');
    expect(hub.spec).toEqual({
      container: {
        image: 'nginx:1.27',
        port: 8080,
        resources: { requests: { memory: '32Mi' }, limits: { memory: '32Mi' } },
      },
      replicas: 1,
    });
    expect((await createV1alpha1Client(cs.rest, NAMESPACE).get('legacy')).spec).toEqual(
      written.spec,
    );
  });
});
