import type {
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
} from '@k/clientset/admissionregistration/v1';
import type { CustomResourceDefinition } from '@k/clientset/apiextensions/v1';
import { describe, expect, it } from 'vitest';
import {
  rewriteClientConfig,
  rewriteCrdConversion,
  rewriteWebhookConfiguration,
  webhookUrl,
} from './webhook-rewrite.js';

const endpoint = { port: 9443, caBundle: 'Q0EgUEVN' };

const validating: ValidatingWebhookConfiguration = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'webapps' },
  webhooks: [
    {
      name: 'vwebapp.example.com',
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      clientConfig: {
        service: {
          name: 'webhook-service',
          namespace: 'system',
          path: '/validate-webapp',
          port: 443,
        },
      },
    },
    {
      name: 'external.example.com',
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      clientConfig: { url: 'https://127.0.0.1:8443/external', caBundle: 'b2xk' },
    },
    {
      name: 'root.example.com',
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      clientConfig: { service: { name: 'root', namespace: 'system' } },
    },
  ],
};

function crd(
  conversion: CustomResourceDefinition['spec']['conversion'],
  extra: Partial<CustomResourceDefinition['spec']> = {},
): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'webapps.example.com' },
    spec: {
      group: 'example.com',
      names: { kind: 'WebApp', plural: 'webapps' },
      scope: 'Namespaced',
      versions: [
        { name: 'v1alpha1', served: true, storage: true },
        { name: 'v1beta1', served: true, storage: false },
      ],
      ...(conversion ? { conversion } : {}),
      ...extra,
    },
  };
}

describe('webhookUrl', () => {
  it('joins loopback, the port and the path with exactly one slash', () => {
    expect(webhookUrl(9443, '/validate')).toBe('https://127.0.0.1:9443/validate');
    expect(webhookUrl(9443, 'validate')).toBe('https://127.0.0.1:9443/validate');
    expect(webhookUrl(9443, '//validate')).toBe('https://127.0.0.1:9443/validate');
    expect(webhookUrl(1, '/')).toBe('https://127.0.0.1:1/');
  });

  it('refuses a port that is not a TCP port', () => {
    expect(() => webhookUrl(0, '/x')).toThrow(RangeError);
    expect(() => webhookUrl(65_536, '/x')).toThrow(RangeError);
    expect(() => webhookUrl(1.5, '/x')).toThrow(RangeError);
  });
});

describe('rewriteWebhookConfiguration', () => {
  it('turns a service with a path into a loopback url with the serving CA bundle', () => {
    const rewritten = rewriteWebhookConfiguration(validating, endpoint);
    expect(rewritten.webhooks?.[0]?.clientConfig).toEqual({
      url: 'https://127.0.0.1:9443/validate-webapp',
      caBundle: 'Q0EgUEVN',
    });
    expect(rewritten.webhooks?.[0]?.name).toBe('vwebapp.example.com');
    expect(rewritten.webhooks?.[0]?.sideEffects).toBe('None');
  });

  it('keeps an existing url and gives it the serving CA bundle', () => {
    const rewritten = rewriteWebhookConfiguration(validating, endpoint);
    expect(rewritten.webhooks?.[1]?.clientConfig).toEqual({
      url: 'https://127.0.0.1:8443/external',
      caBundle: 'Q0EgUEVN',
    });
  });

  it('sends a service without a path to the root, as kube-apiserver calls a service', () => {
    expect(rewriteWebhookConfiguration(validating, endpoint).webhooks?.[2]?.clientConfig).toEqual({
      url: 'https://127.0.0.1:9443/',
      caBundle: 'Q0EgUEVN',
    });
  });

  it('uses the port the server really bound when given', () => {
    const mutating: MutatingWebhookConfiguration = {
      metadata: { name: 'm' },
      webhooks: [
        {
          name: 'mwebapp.example.com',
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          clientConfig: { service: { name: 's', namespace: 'n', path: '/mutate' } },
        },
      ],
    };
    expect(
      rewriteWebhookConfiguration(mutating, endpoint, { port: 12_345 }).webhooks?.[0]?.clientConfig
        .url,
    ).toBe('https://127.0.0.1:12345/mutate');
  });

  it('leaves its argument as it was', () => {
    const before = structuredClone(validating);
    rewriteWebhookConfiguration(validating, endpoint);
    expect(validating).toEqual(before);
    expect(rewriteClientConfig({ url: 'https://x' }, endpoint)).toEqual({
      url: 'https://x',
      caBundle: 'Q0EgUEVN',
    });
  });
});

describe('rewriteCrdConversion', () => {
  it('points a Webhook conversion with a service at the loopback server', () => {
    const source = crd({
      strategy: 'Webhook',
      webhook: {
        clientConfig: {
          service: { name: 'webhook-service', namespace: 'system', path: '/convert' },
        },
        conversionReviewVersions: ['v1'],
      },
    });
    const rewritten = rewriteCrdConversion(source, endpoint);
    expect(rewritten.spec.conversion).toEqual({
      strategy: 'Webhook',
      webhook: {
        clientConfig: { url: 'https://127.0.0.1:9443/convert', caBundle: 'Q0EgUEVN' },
        conversionReviewVersions: ['v1'],
      },
    });
    expect(source.spec.conversion?.webhook?.clientConfig?.service).toBeDefined();
  });

  it('uses the given path and port over the service path', () => {
    const source = crd({
      strategy: 'Webhook',
      webhook: {
        clientConfig: { service: { name: 's', namespace: 'n', path: '/old' } },
        conversionReviewVersions: ['v1'],
      },
    });
    expect(
      rewriteCrdConversion(source, endpoint, { path: '/custom', port: 7443 }).spec.conversion
        ?.webhook?.clientConfig,
    ).toEqual({ url: 'https://127.0.0.1:7443/custom', caBundle: 'Q0EgUEVN' });
  });

  it('keeps an existing url and gives it the CA bundle', () => {
    const source = crd({
      strategy: 'Webhook',
      webhook: {
        clientConfig: { url: 'https://127.0.0.1:9999/c' },
        conversionReviewVersions: ['v1'],
      },
    });
    expect(rewriteCrdConversion(source, endpoint).spec.conversion?.webhook?.clientConfig).toEqual({
      url: 'https://127.0.0.1:9999/c',
      caBundle: 'Q0EgUEVN',
    });
  });

  it('sets conversionReviewVersions when the CRD names none, and /convert without a path', () => {
    const source = crd({ strategy: 'Webhook', webhook: { conversionReviewVersions: [] } });
    expect(rewriteCrdConversion(source, endpoint).spec.conversion?.webhook).toEqual({
      clientConfig: { url: 'https://127.0.0.1:9443/convert', caBundle: 'Q0EgUEVN' },
      conversionReviewVersions: ['v1', 'v1beta1'],
    });
  });

  it('leaves a CRD with strategy None or no conversion alone unless all is set', () => {
    const none = crd({ strategy: 'None' });
    const absent = crd(undefined);
    expect(rewriteCrdConversion(none, endpoint)).toBe(none);
    expect(rewriteCrdConversion(absent, endpoint)).toBe(absent);
    for (const source of [none, absent])
      expect(rewriteCrdConversion(source, endpoint, { all: true }).spec.conversion).toEqual({
        strategy: 'Webhook',
        webhook: {
          clientConfig: { url: 'https://127.0.0.1:9443/convert', caBundle: 'Q0EgUEVN' },
          conversionReviewVersions: ['v1', 'v1beta1'],
        },
      });
  });

  it('with all, still leaves a CRD of one version alone', () => {
    const single = crd(undefined, { versions: [{ name: 'v1', served: true, storage: true }] });
    expect(rewriteCrdConversion(single, endpoint, { all: true })).toBe(single);
  });

  it('skips a CRD with preserveUnknownFields, even with strategy Webhook or all', () => {
    const preserving = crd(
      { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'] } },
      { preserveUnknownFields: true },
    );
    expect(rewriteCrdConversion(preserving, endpoint)).toBe(preserving);
    expect(rewriteCrdConversion(preserving, endpoint, { all: true })).toBe(preserving);
  });
});
