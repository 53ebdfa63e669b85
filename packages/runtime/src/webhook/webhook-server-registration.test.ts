import { describe, expect, it } from 'vitest';
import { RuntimeError } from '../errors.js';
import { webAppConversion } from './__fixtures__/webapp-conversion.js';
import { WebhookServer } from './webhook-server.js';

// The typed registrations of a WebhookServer: paths, what the configurations are written from,
// and the one /convert path every conversion shares. No server is started here.

const webApps = {
  group: 'demo.k.io',
  version: 'v1',
  kind: 'WebApp',
  plural: 'webapps',
  namespaced: true,
};
const pods = { group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true };

/** thrown is what `action` throws (undefined when it returns). */
function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  return undefined;
}

function selfSigned(): WebhookServer {
  return new WebhookServer({ certificate: { selfSigned: { hosts: ['127.0.0.1'] } } });
}

describe('WebhookServer registrations', () => {
  it('serves validating and mutating webhooks at controller-runtime paths, with the operations their handlers cover', () => {
    const server = selfSigned()
      .validating(webApps, { create: () => {}, delete: () => {} }, { failurePolicy: 'Ignore' })
      .mutating({ descriptor: pods }, { mutate: () => {} });
    expect(server.registrations()).toEqual([
      {
        type: 'validating',
        path: '/validate-demo-k-io-v1-webapp',
        resource: webApps,
        operations: ['CREATE', 'DELETE'],
        options: { failurePolicy: 'Ignore' },
      },
      {
        type: 'mutating',
        path: '/mutate--v1-pod',
        resource: pods,
        operations: ['CREATE', 'UPDATE'],
        options: {},
      },
    ]);
  });

  it('serves every conversion at /convert, one registration per CRD, and refuses a kind twice', () => {
    const server = selfSigned()
      .conversion(webAppConversion)
      .conversion({
        group: 'demo.k.io',
        kind: 'Gadget',
        plural: 'gadgets',
        hub: 'v2',
        spokes: { v1: { toHub: (old: object) => old, fromHub: (hub: object) => hub } },
      });
    expect(server.registrations()).toEqual([
      {
        type: 'conversion',
        path: '/convert',
        crdName: 'webapps.demo.k.io',
        versions: ['v1', 'v1alpha1'],
      },
      {
        type: 'conversion',
        path: '/convert',
        crdName: 'gadgets.demo.k.io',
        versions: ['v2', 'v1'],
      },
    ]);
    const twice = thrown(() => server.conversion(webAppConversion));
    expect(twice).toBeInstanceOf(RuntimeError);
    expect((twice as RuntimeError).code).toBe('ERR_RUNTIME_CONFIGURATION');
    expect(server.registrations()).toHaveLength(2);
  });

  it('refuses a path taken twice, a conversion path taken by handle(), and a resource without a kind', () => {
    const server = selfSigned().validating(webApps, { create: () => {} });
    expect(
      (thrown(() => server.validating(webApps, { update: () => {} })) as RuntimeError).code,
    ).toBe('ERR_RUNTIME_CONFIGURATION');
    const own = selfSigned().handle('/convert', () => Promise.resolve({ status: 200, body: {} }));
    expect((thrown(() => own.conversion(webAppConversion)) as RuntimeError).code).toBe(
      'ERR_RUNTIME_CONFIGURATION',
    );
    expect(
      (
        thrown(() =>
          server.mutating({ ...webApps, kind: '' }, { mutate: () => {} }),
        ) as RuntimeError
      ).code,
    ).toBe('ERR_RUNTIME_INVALID_ARGUMENT');
  });

  it('writes configurations for its registrations, trusting its self-signed CA by default', async () => {
    const server = selfSigned()
      .validating(webApps, { create: () => {} })
      .mutating(webApps, { mutate: () => {} })
      .conversion(webAppConversion);
    const configurations = server.configurations({
      name: 'demo-operator',
      target: { service: { namespace: 'demo-system', name: 'demo-webhooks' } },
    });
    const caBundle = server.certificateAuthority?.caBundle;
    expect(caBundle).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(configurations.validating?.webhooks?.[0]?.clientConfig).toEqual({
      service: {
        namespace: 'demo-system',
        name: 'demo-webhooks',
        path: '/validate-demo-k-io-v1-webapp',
        port: 443,
      },
      caBundle,
    });
    expect(configurations.mutating?.webhooks?.[0]?.name).toBe('mutate.webapps.demo.k.io');
    expect(configurations.conversions.map((conversion) => conversion.crdName)).toEqual([
      'webapps.demo.k.io',
    ]);
    expect(
      await server.manifests({ name: 'demo-operator', target: { url: 'https://127.0.0.1:9443' } }),
    ).toContain('url: https://127.0.0.1:9443/convert');
  });

  it('leaves caBundle out for certificate files unless given', () => {
    const server = new WebhookServer({ certificate: { certDir: '/nonexistent' } }).validating(
      webApps,
      { create: () => {} },
    );
    const configurations = server.configurations({
      name: 'demo-operator',
      target: { url: 'https://webhooks.example.com' },
    });
    expect(configurations.validating?.webhooks?.[0]?.clientConfig).toEqual({
      url: 'https://webhooks.example.com/validate-demo-k-io-v1-webapp',
    });
  });
});
