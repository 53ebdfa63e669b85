import type { Clientset } from '@k/clientset';
import { useTestNamespace } from '@k/envtest/vitest';
import { AdmissionDenied } from '@k/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebApp } from '../src/generated/web-app-v1beta1.js';
import { refuseTakenName } from '../src/webhooks/webapp-validation.js';
import { clientsetFor } from './helpers.js';

const namespace = useTestNamespace({ prefix: 'demo-operator-rules' });
let cs: Clientset;

beforeAll(async () => {
  cs = await clientsetFor();
});

afterAll(async () => {
  await cs?.close();
});

function webApp(name: string): WebApp {
  return {
    apiVersion: 'apps.k.example/v1beta1',
    kind: 'WebApp',
    metadata: { name, namespace: namespace.name },
    spec: { container: { image: 'nginx:1.27' } },
  };
}

describe('refuseTakenName, reading the real API server', () => {
  it('lets a WebApp whose name nothing has be created', async () => {
    await expect(refuseTakenName(cs, webApp('free'))).resolves.toBeUndefined();
  });

  it('refuses one whose name another team’s Service has (422 Invalid, the cause on metadata.name), and takes the namespace from the request when the object has none', async () => {
    await cs.coreV1.services(namespace.name).create({
      metadata: { name: 'taken' },
      spec: { ports: [{ port: 80 }] },
    });
    const refusal = await refuseTakenName(cs, webApp('taken')).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(AdmissionDenied);
    const denied = refusal as AdmissionDenied;
    expect([denied.statusCode, denied.reason]).toEqual([422, 'Invalid']);
    expect(denied.causes.map((cause) => cause.field)).toEqual(['metadata.name']);
    expect(denied.causes[0]?.message).toMatch(/^a Service named taken already exists/);
    const withoutNamespace = { ...webApp('taken'), metadata: { name: 'taken' } };
    await expect(refuseTakenName(cs, withoutNamespace, namespace.name)).rejects.toBeInstanceOf(
      AdmissionDenied,
    );
  });
});
