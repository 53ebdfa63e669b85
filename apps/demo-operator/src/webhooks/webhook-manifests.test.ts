import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseManifests, type UnstructuredObject } from '@k/clientset';
import { describe, expect, it } from 'vitest';
import {
  CERTIFICATE,
  WEBHOOK_SERVICE,
  crdConversion,
  webhookManifests,
} from './webhook-manifests.js';

const deploy = (file: string) =>
  readFileSync(path.resolve(import.meta.dirname, '../../deploy', file), 'utf8');

describe('deploy/webhooks.yaml', () => {
  it('is what the operator’s webhooks make of themselves today (npm run generate -w @k/demo-operator)', async () => {
    expect(deploy('webhooks.yaml')).toBe(await webhookManifests());
  });

  it('points both configurations at the webhook Service, with cert-manager’s CA, and crd.yaml converts through the operator as its conversion webhook says', async () => {
    const objects = (await parseManifests(await webhookManifests())) as (UnstructuredObject & {
      webhooks?: { clientConfig: { service: { namespace: string; name: string } } }[];
      spec?: { conversion?: unknown };
    })[];
    expect(objects.map((object) => object.kind)).toEqual([
      'ValidatingWebhookConfiguration',
      'MutatingWebhookConfiguration',
    ]);
    for (const configuration of objects) {
      expect(configuration.metadata?.annotations).toEqual({
        'cert-manager.io/inject-ca-from': CERTIFICATE,
      });
      for (const webhook of configuration.webhooks ?? [])
        expect(webhook.clientConfig.service).toMatchObject(WEBHOOK_SERVICE);
    }
    const [crd] = (await parseManifests(deploy('crd.yaml'))) as (UnstructuredObject & {
      spec: { conversion?: unknown };
    })[];
    expect(crd?.spec.conversion).toEqual(crdConversion());
    expect(crdConversion()).toMatchObject({ strategy: 'Webhook' });
    expect(crd?.metadata?.annotations?.['cert-manager.io/inject-ca-from']).toBe(CERTIFICATE);
    const [service] = await parseManifests(deploy('webhook-service.yaml'));
    expect(service?.metadata).toMatchObject(WEBHOOK_SERVICE);
    const certificate = (await parseManifests(deploy('certificate.yaml'))).find(
      (object) => object.kind === 'Certificate',
    );
    expect(`${certificate?.metadata?.namespace}/${certificate?.metadata?.name}`).toBe(CERTIFICATE);
  });
});
