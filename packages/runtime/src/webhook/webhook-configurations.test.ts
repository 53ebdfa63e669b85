import type { ResourceDescriptor } from '@k/clientset';
import { parseAllDocuments } from '@k/config/yaml-guards';
import { caught } from '@k/test-utils';
import { describe, expect, it } from 'vitest';
import { RuntimeError } from '../errors.js';
import type { AdmissionRegistrationOptions, WebhookRegistration } from './webhook-handler.js';
import {
  webhookConfigurations,
  webhookManifests,
  type CrdConversion,
  type WebhookConfigurationOptions,
  type WebhookServiceTarget,
  type WebhookTarget,
} from './webhook-configurations.js';

const webApps: ResourceDescriptor = {
  group: 'demo.k.io',
  version: 'v1',
  kind: 'WebApp',
  plural: 'webapps',
  namespaced: true,
};
const pods: ResourceDescriptor = {
  group: '',
  version: 'v1',
  kind: 'Pod',
  plural: 'pods',
  namespaced: true,
};
const clusterThings: ResourceDescriptor = {
  group: 'demo.k.io',
  version: 'v1',
  kind: 'ClusterThing',
  plural: 'clusterthings',
  namespaced: false,
};

// Not a real certificate: webhookConfigurations only checks that a PEM certificate block is there.
const PEM = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';

const serviceTarget: WebhookServiceTarget = {
  namespace: 'demo-system',
  name: 'demo-operator-webhooks',
};
const target: WebhookTarget = { service: serviceTarget };
const service = { name: 'demo-operator', target } satisfies WebhookConfigurationOptions;

type AdmissionRegistration = Extract<WebhookRegistration, { type: 'validating' | 'mutating' }>;

function validating(
  options: AdmissionRegistrationOptions = {},
  resource: ResourceDescriptor = webApps,
): AdmissionRegistration {
  return {
    type: 'validating',
    path: `/validate-${resource.group.replaceAll('.', '-')}-${resource.version}-${resource.kind.toLowerCase()}`,
    resource,
    operations: ['CREATE', 'UPDATE'],
    options,
  };
}

function mutating(
  options: AdmissionRegistrationOptions = {},
  resource: ResourceDescriptor = webApps,
): AdmissionRegistration {
  return {
    type: 'mutating',
    path: `/mutate-${resource.group.replaceAll('.', '-')}-${resource.version}-${resource.kind.toLowerCase()}`,
    resource,
    operations: ['CREATE', 'UPDATE'],
    options,
  };
}

const conversion: WebhookRegistration = {
  type: 'conversion',
  path: '/convert',
  crdName: 'webapps.demo.k.io',
  versions: ['v1', 'v1alpha1'],
};

async function configurationError(work: () => unknown): Promise<string> {
  const error = await caught(work);
  expect(RuntimeError.isInstance(error), String(error)).toBe(true);
  expect((error as RuntimeError).code).toBe('ERR_RUNTIME_CONFIGURATION');
  return (error as RuntimeError).message;
}

describe('webhookConfigurations', () => {
  it('writes a validating webhook with every default controller-runtime gives', () => {
    const {
      validating: configuration,
      mutating: none,
      conversions,
    } = webhookConfigurations([validating()], service);
    expect(none).toBeUndefined();
    expect(conversions).toEqual([]);
    expect(configuration).toEqual({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'demo-operator' },
      webhooks: [
        {
          name: 'validate.webapps.demo.k.io',
          clientConfig: {
            service: {
              namespace: 'demo-system',
              name: 'demo-operator-webhooks',
              path: '/validate-demo-k-io-v1-webapp',
              port: 443,
            },
          },
          rules: [
            {
              apiGroups: ['demo.k.io'],
              apiVersions: ['v1'],
              resources: ['webapps'],
              operations: ['CREATE', 'UPDATE'],
              scope: 'Namespaced',
            },
          ],
          failurePolicy: 'Fail',
          sideEffects: 'None',
          timeoutSeconds: 10,
          matchPolicy: 'Equivalent',
          admissionReviewVersions: ['v1'],
        },
      ],
    });
  });

  it('writes a mutating webhook with reinvocationPolicy Never, both configurations under one name and the labels', () => {
    const { validating: v, mutating: m } = webhookConfigurations([validating(), mutating()], {
      ...service,
      labels: { 'app.kubernetes.io/name': 'demo-operator' },
    });
    expect(v?.metadata).toEqual({
      name: 'demo-operator',
      labels: { 'app.kubernetes.io/name': 'demo-operator' },
    });
    expect(m?.metadata).toEqual(v?.metadata);
    expect(m?.metadata).not.toBe(v?.metadata);
    expect(m?.kind).toBe('MutatingWebhookConfiguration');
    expect(m?.webhooks).toHaveLength(1);
    expect(m?.webhooks?.[0]).toMatchObject({
      name: 'mutate.webapps.demo.k.io',
      reinvocationPolicy: 'Never',
      clientConfig: { service: { path: '/mutate-demo-k-io-v1-webapp' } },
    });
    expect(v?.webhooks?.[0]).not.toHaveProperty('reinvocationPolicy');
  });

  it('names the core group `core` and gives cluster-scoped resources the Cluster scope', () => {
    const { validating: configuration } = webhookConfigurations(
      [validating({}, pods), validating({}, clusterThings)],
      service,
    );
    const [pod, clusterThing] = configuration?.webhooks ?? [];
    expect(pod?.name).toBe('validate.pods.core');
    expect(pod?.rules).toEqual([
      {
        apiGroups: [''],
        apiVersions: ['v1'],
        resources: ['pods'],
        operations: ['CREATE', 'UPDATE'],
        scope: 'Namespaced',
      },
    ]);
    expect(pod?.clientConfig.service?.path).toBe('/validate--v1-pod');
    expect(clusterThing?.rules?.[0]?.scope).toBe('Cluster');
  });

  it('maps every registration option onto its webhook', () => {
    const options: AdmissionRegistrationOptions = {
      name: 'defaults.webapps.example.com',
      failurePolicy: 'Ignore',
      sideEffects: 'NoneOnDryRun',
      timeoutSeconds: 30,
      matchPolicy: 'Exact',
      namespaceSelector: {
        matchExpressions: [
          { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] },
        ],
      },
      objectSelector: {
        matchLabels: { 'demo.k.io/webhooks': 'on' },
        matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }],
      },
      matchConditions: [
        { name: 'not-a-node', expression: "!request.userInfo.username.startsWith('system:node:')" },
      ],
      reinvocationPolicy: 'IfNeeded',
      subresources: ['status', 'scale'],
    };
    const { mutating: configuration } = webhookConfigurations([mutating(options)], service);
    expect(configuration?.webhooks?.[0]).toEqual({
      name: 'defaults.webapps.example.com',
      clientConfig: {
        service: {
          namespace: 'demo-system',
          name: 'demo-operator-webhooks',
          path: '/mutate-demo-k-io-v1-webapp',
          port: 443,
        },
      },
      rules: [
        {
          apiGroups: ['demo.k.io'],
          apiVersions: ['v1'],
          resources: ['webapps', 'webapps/status', 'webapps/scale'],
          operations: ['CREATE', 'UPDATE'],
          scope: 'Namespaced',
        },
      ],
      failurePolicy: 'Ignore',
      sideEffects: 'NoneOnDryRun',
      timeoutSeconds: 30,
      matchPolicy: 'Exact',
      admissionReviewVersions: ['v1'],
      namespaceSelector: options.namespaceSelector,
      objectSelector: options.objectSelector,
      matchConditions: options.matchConditions,
      reinvocationPolicy: 'IfNeeded',
    });
    // Copies, not the caller's objects: changing the options later changes nothing written.
    expect(configuration?.webhooks?.[0]?.objectSelector).not.toBe(options.objectSelector);
  });

  it('takes a Service port, or a URL with the path appended once', () => {
    const port = webhookConfigurations([validating()], {
      name: 'demo-operator',
      target: { service: { namespace: 'demo-system', name: 'webhooks', port: 9443 } },
    });
    expect(port.validating?.webhooks?.[0]?.clientConfig.service?.port).toBe(9443);
    for (const base of [
      'https://webhooks.example.com:8443/k',
      'https://webhooks.example.com:8443/k/',
    ]) {
      const url = webhookConfigurations([validating(), conversion], {
        name: 'demo-operator',
        target: { url: base },
      });
      expect(url.validating?.webhooks?.[0]?.clientConfig).toEqual({
        url: 'https://webhooks.example.com:8443/k/validate-demo-k-io-v1-webapp',
      });
      expect(url.conversions[0]?.conversion.webhook?.clientConfig).toEqual({
        url: 'https://webhooks.example.com:8443/k/convert',
      });
    }
  });

  it('takes the caBundle as PEM text or its base64, and writes canonical base64 everywhere', () => {
    const base64 = btoa(PEM);
    for (const caBundle of [
      PEM,
      base64,
      base64.replace(/=+$/, ''),
      base64.replace(/(.{8})/g, '$1\n'),
    ]) {
      const { validating: v, conversions } = webhookConfigurations([validating(), conversion], {
        ...service,
        caBundle,
      });
      expect(v?.webhooks?.[0]?.clientConfig.caBundle).toBe(base64);
      expect(conversions[0]?.conversion.webhook?.clientConfig?.caBundle).toBe(base64);
    }
    const { validating: without } = webhookConfigurations([validating()], service);
    expect(without?.webhooks?.[0]?.clientConfig).not.toHaveProperty('caBundle');
  });

  it('writes one conversion per CRD, pointing at its path', () => {
    const {
      conversions,
      validating: v,
      mutating: m,
    } = webhookConfigurations([conversion], service);
    expect(v).toBeUndefined();
    expect(m).toBeUndefined();
    expect(conversions).toEqual<CrdConversion[]>([
      {
        crdName: 'webapps.demo.k.io',
        versions: ['v1', 'v1alpha1'],
        conversion: {
          strategy: 'Webhook',
          webhook: {
            clientConfig: {
              service: {
                namespace: 'demo-system',
                name: 'demo-operator-webhooks',
                path: '/convert',
                port: 443,
              },
            },
            conversionReviewVersions: ['v1'],
          },
        },
      },
    ]);
  });

  it('writes nothing for no registrations', () => {
    expect(webhookConfigurations([], service)).toEqual({
      validating: undefined,
      mutating: undefined,
      conversions: [],
    });
  });

  it('keeps the registrations in order and handles many', () => {
    const many = Array.from({ length: 5_000 }, (_, index) =>
      validating({ name: `validate-${index}.webapps.demo.k.io` }),
    );
    const { validating: configuration } = webhookConfigurations(many, service);
    expect(configuration?.webhooks).toHaveLength(5_000);
    expect(configuration?.webhooks?.[4_999]?.name).toBe('validate-4999.webapps.demo.k.io');
  });

  describe('refuses what the API server would refuse', () => {
    it('webhook names that are not DNS subdomains of three segments', async () => {
      expect(
        await configurationError(() =>
          webhookConfigurations([validating({ name: 'webapps.example' })], service),
        ),
      ).toMatch(/"webapps.example" must be fully qualified, with at least 3/);
      expect(
        await configurationError(() =>
          webhookConfigurations([validating({ name: 'Validate.WebApps.example.com' })], service),
        ),
      ).toMatch(/not a DNS subdomain/);
      expect(
        await configurationError(() =>
          webhookConfigurations([validating({ name: `a.b.${'c'.repeat(300)}` })], service),
        ),
      ).toMatch(/not a DNS subdomain/);
    });

    it('two webhooks of one kind under one name, or two conversions of one CRD', async () => {
      expect(
        await configurationError(() =>
          webhookConfigurations([validating(), validating()], service),
        ),
      ).toMatch(/two validating webhooks are named validate.webapps.demo.k.io/);
      // A validating and a mutating webhook live in two configurations: one name each is fine.
      expect(() =>
        webhookConfigurations(
          [validating({ name: 'webapps.demo.k.io' }), mutating({ name: 'webapps.demo.k.io' })],
          service,
        ),
      ).not.toThrow();
      expect(
        await configurationError(() => webhookConfigurations([conversion, conversion], service)),
      ).toMatch(/two conversion webhooks are registered for webapps.demo.k.io/);
    });

    it('timeouts outside 1–30 whole seconds', async () => {
      for (const timeoutSeconds of [0, 31, 1.5, Number.NaN]) {
        expect(
          await configurationError(() =>
            webhookConfigurations([validating({ timeoutSeconds })], service),
          ),
        ).toMatch(/timeoutSeconds must be a whole number from 1 to 30/);
      }
      expect(
        webhookConfigurations([validating({ timeoutSeconds: 1 })], service).validating
          ?.webhooks?.[0]?.timeoutSeconds,
      ).toBe(1);
    });

    it('values outside the enumerations, and reinvocationPolicy on a validating webhook', async () => {
      const bad = (options: object) => () => webhookConfigurations([mutating(options)], service);
      expect(await configurationError(bad({ failurePolicy: 'fail' }))).toMatch(
        /failurePolicy must be one of Fail, Ignore, not "fail"/,
      );
      expect(await configurationError(bad({ sideEffects: 'Some' }))).toMatch(
        /sideEffects must be one of None, NoneOnDryRun/,
      );
      expect(await configurationError(bad({ matchPolicy: 'Loose' }))).toMatch(/matchPolicy/);
      expect(await configurationError(bad({ reinvocationPolicy: 'Always' }))).toMatch(
        /reinvocationPolicy/,
      );
      expect(
        await configurationError(() =>
          webhookConfigurations([validating({ reinvocationPolicy: 'IfNeeded' })], service),
        ),
      ).toMatch(/reinvocationPolicy is for mutating webhooks only/);
    });

    it('matchConditions beyond 64, under one name twice, with bad names or no expression', async () => {
      const conditions = (count: number) =>
        Array.from({ length: count }, (_, index) => ({ name: `c${index}`, expression: 'true' }));
      expect(
        webhookConfigurations([validating({ matchConditions: conditions(64) })], service).validating
          ?.webhooks?.[0]?.matchConditions,
      ).toHaveLength(64);
      expect(
        await configurationError(() =>
          webhookConfigurations([validating({ matchConditions: conditions(65) })], service),
        ),
      ).toMatch(/65 matchConditions, more than the 64/);
      const twice = [...conditions(1), ...conditions(1)];
      expect(
        await configurationError(() =>
          webhookConfigurations([validating({ matchConditions: twice })], service),
        ),
      ).toMatch(/two matchConditions are named c0/);
      expect(
        await configurationError(() =>
          webhookConfigurations(
            [validating({ matchConditions: [{ name: 'has space', expression: 'true' }] })],
            service,
          ),
        ),
      ).toMatch(/not a qualified name/);
      expect(
        await configurationError(() =>
          webhookConfigurations(
            [validating({ matchConditions: [{ name: 'blank', expression: '  ' }] })],
            service,
          ),
        ),
      ).toMatch(/matchCondition blank has no expression/);
    });

    it('malformed label selectors', async () => {
      const bad = (selector: unknown) => () =>
        webhookConfigurations(
          [
            validating({
              objectSelector: selector as AdmissionRegistrationOptions['objectSelector'],
            }),
          ],
          service,
        );
      expect(
        await configurationError(
          bad({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }),
        ),
      ).toMatch(/a In needs at least one value/);
      expect(
        await configurationError(
          bad({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }),
        ),
      ).toMatch(/a Exists takes no values/);
      expect(
        await configurationError(
          bad({ matchExpressions: [{ key: 'a', operator: 'Equals', values: ['x'] }] }),
        ),
      ).toMatch(/unknown operator "Equals"/);
      expect(
        await configurationError(
          bad({ matchExpressions: [{ key: 'a', operator: 'In', values: ['not valid'] }] }),
        ),
      ).toMatch(/"not valid" is not a valid label value/);
      expect(await configurationError(bad({ matchLabels: { 'bad key!': 'x' } }))).toMatch(
        /"bad key!" is not a valid label key/,
      );
      expect(await configurationError(bad({ matchLabels: { a: 'x'.repeat(64) } }))).toMatch(
        /the value of a is not a valid label value/,
      );
      expect(await configurationError(bad('app=web'))).toMatch(/must be a label selector object/);
    });

    it('a __proto__ label key from parsed JSON, and never copies inherited keys', async () => {
      const hostile = JSON.parse('{"__proto__": {"polluted": "yes"}}') as Record<string, string>;
      expect(
        await configurationError(() =>
          webhookConfigurations(
            [validating({ objectSelector: { matchLabels: hostile } })],
            service,
          ),
        ),
      ).toMatch(/"__proto__" is not a valid label key/);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      const inherited = Object.create({ inherited: 'x' }) as Record<string, string>;
      inherited.own = 'y';
      const { validating: configuration } = webhookConfigurations(
        [validating({ objectSelector: { matchLabels: inherited } })],
        service,
      );
      expect(configuration?.webhooks?.[0]?.objectSelector).toEqual({ matchLabels: { own: 'y' } });
    });

    it('URLs that are not https, or hold a user, a query or a fragment', async () => {
      const target = (url: string) => () =>
        webhookConfigurations([validating()], { name: 'demo-operator', target: { url } });
      expect(await configurationError(target('http://webhooks.example.com'))).toMatch(
        /must start with https:\/\//,
      );
      expect(await configurationError(target('https://user:secret@webhooks.example.com'))).toMatch(
        /must not hold a user or password/,
      );
      expect(await configurationError(target('https://webhooks.example.com/?cluster=a'))).toMatch(
        /query or a fragment/,
      );
      expect(await configurationError(target('https://webhooks.example.com/#a'))).toMatch(
        /query or a fragment/,
      );
      expect(await configurationError(target('not a url'))).toMatch(/is not a URL/);
    });

    it('a user and password in a URL never appear in the error', async () => {
      for (const url of [
        'https://user:hunter2@webhooks.example.com',
        'https://user:hunter2@[::1',
      ]) {
        const message = await configurationError(() =>
          webhookConfigurations([validating()], { name: 'demo-operator', target: { url } }),
        );
        expect(message).not.toContain('hunter2');
      }
    });

    it('bad Service references, ports and Service paths', async () => {
      const target =
        (reference: Record<string, unknown>, registration = validating()) =>
        () =>
          webhookConfigurations([registration], {
            name: 'demo-operator',
            target: { service: reference as { namespace: string; name: string } },
          });
      expect(await configurationError(target({ namespace: 'Demo', name: 'webhooks' }))).toMatch(
        /namespace "Demo" is not a namespace name/,
      );
      expect(await configurationError(target({ namespace: 'demo', name: '1webhooks' }))).toMatch(
        /name "1webhooks" is not a Service name/,
      );
      for (const port of [0, 65_536, 443.5]) {
        expect(
          await configurationError(target({ namespace: 'demo', name: 'webhooks', port })),
        ).toMatch(/port must be a port number/);
      }
      const upper = { ...validating(), path: '/validate-Demo' } as AdmissionRegistration;
      expect(
        await configurationError(target({ namespace: 'demo', name: 'webhooks' }, upper)),
      ).toMatch(/between slashes in a Service path/);
      const empty = { ...validating(), path: '/a//b' } as AdmissionRegistration;
      expect(
        await configurationError(target({ namespace: 'demo', name: 'webhooks' }, empty)),
      ).toMatch(/Service path/);
      const relative = { ...validating(), path: 'validate' } as AdmissionRegistration;
      expect(
        await configurationError(target({ namespace: 'demo', name: 'webhooks' }, relative)),
      ).toMatch(/must start with \//);
      // A URL target takes any path.
      expect(
        webhookConfigurations([upper], {
          name: 'demo-operator',
          target: { url: 'https://a.example' },
        }).validating?.webhooks?.[0]?.clientConfig.url,
      ).toBe('https://a.example/validate-Demo');
    });

    it('a target with both a service and a url, or neither', async () => {
      expect(
        await configurationError(() =>
          webhookConfigurations([validating()], {
            name: 'demo-operator',
            target: { url: 'https://a.example', service: { namespace: 'a', name: 'b' } } as never,
          }),
        ),
      ).toMatch(/a service or a url, not both/);
      expect(
        await configurationError(() =>
          webhookConfigurations([validating()], { name: 'demo-operator', target: {} as never }),
        ),
      ).toMatch(/target must be/);
    });

    it('a caBundle without a certificate', async () => {
      const ca = (caBundle: string) => () =>
        webhookConfigurations([validating()], { ...service, caBundle });
      expect(await configurationError(ca(''))).toMatch(/not empty/);
      expect(await configurationError(ca('not base64!'))).toMatch(/neither PEM text nor base64/);
      expect(await configurationError(ca(btoa('just text')))).toMatch(/holds no PEM certificate/);
      expect(
        await configurationError(ca('-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n')),
      ).toMatch(/holds no PEM certificate/);
    });

    it('bad configuration names, labels, CRD names, operations and types', async () => {
      expect(
        await configurationError(() =>
          webhookConfigurations([], { ...service, name: 'Demo_Operator' }),
        ),
      ).toMatch(/configurations’ name "Demo_Operator"/);
      expect(
        await configurationError(() =>
          webhookConfigurations([], { ...service, labels: { a: 'b c' } }),
        ),
      ).toMatch(/labels: the value of a/);
      expect(
        await configurationError(() =>
          webhookConfigurations([{ ...conversion, crdName: 'webapps.demo' }], service),
        ),
      ).toMatch(/CustomResourceDefinition name "webapps.demo" must be fully qualified/);
      expect(
        await configurationError(() =>
          webhookConfigurations([{ ...validating(), operations: [] }], service),
        ),
      ).toMatch(/no operations/);
      expect(
        await configurationError(() =>
          webhookConfigurations([{ ...validating(), operations: ['PATCH'] } as never], service),
        ),
      ).toMatch(/unknown operation "PATCH"/);
      expect(
        await configurationError(() =>
          webhookConfigurations([{ ...validating(), type: 'auditing' } as never], service),
        ),
      ).toMatch(/unknown webhook type "auditing"/);
      expect(
        await configurationError(() =>
          webhookConfigurations([validating({ subresources: ['status', 'status'] })], service),
        ),
      ).toMatch(/subresource status twice/);
      expect(
        await configurationError(() =>
          webhookConfigurations([validating({ subresources: ['a/b'] })], service),
        ),
      ).toMatch(/invalid subresource "a\/b"/);
    });

    it('arguments of the wrong type', async () => {
      const error = await caught(() => webhookConfigurations('x' as never, service));
      expect(RuntimeError.isInstance(error) && error.code).toBe('ERR_RUNTIME_INVALID_ARGUMENT');
    });
  });
});

describe('webhookManifests', () => {
  it('writes the configurations, then each conversion as a CRD patch with how to use it', async () => {
    const configurations = webhookConfigurations([validating(), mutating(), conversion], {
      ...service,
      caBundle: PEM.repeat(20),
    });
    const text = await webhookManifests(configurations);
    const documents = parseAllDocuments(text);
    expect(Array.isArray(documents)).toBe(true);
    const parsed = (documents as { toJS(): unknown; errors: unknown[] }[]).map((document) => {
      expect(document.errors).toEqual([]);
      return document.toJS();
    });
    expect(parsed).toEqual([
      configurations.validating,
      configurations.mutating,
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'webapps.demo.k.io' },
        spec: { conversion: configurations.conversions[0]?.conversion },
      },
    ]);
    expect(text).toContain('# kubectl apply --server-side -f');
    expect(text).toContain('kubectl patch crd webapps.demo.k.io --type merge');
    // The long caBundle stays on one line (no folding), as people diff deploy/ files.
    const caBundle = configurations.validating?.webhooks?.[0]?.clientConfig.caBundle ?? '';
    expect(text).toContain(`caBundle: ${caBundle}\n`);
  });

  it('writes nothing for no configurations', async () => {
    expect(await webhookManifests(webhookConfigurations([], service))).toBe('');
  });
});

describe('webhookConfigurations annotations', () => {
  it('puts annotations (cert-manager’s inject-ca-from) on both configurations, and refuses a bad key', () => {
    const registrations: WebhookRegistration[] = [
      {
        type: 'validating',
        path: '/validate-demo-k-io-v1-webapp',
        resource: {
          group: 'demo.k.io',
          version: 'v1',
          kind: 'WebApp',
          plural: 'webapps',
          namespaced: true,
        },
        operations: ['CREATE'],
        options: {},
      },
      {
        type: 'mutating',
        path: '/mutate-demo-k-io-v1-webapp',
        resource: {
          group: 'demo.k.io',
          version: 'v1',
          kind: 'WebApp',
          plural: 'webapps',
          namespaced: true,
        },
        operations: ['CREATE'],
        options: {},
      },
    ];
    const annotations = { 'cert-manager.io/inject-ca-from': 'demo-system/demo-webhooks' };
    const target = { service: { namespace: 'demo-system', name: 'demo-webhooks' } };
    const configurations = webhookConfigurations(registrations, {
      name: 'demo',
      target,
      annotations,
    });
    expect(configurations.validating?.metadata?.annotations).toEqual(annotations);
    expect(configurations.mutating?.metadata?.annotations).toEqual(annotations);
    expect(() =>
      webhookConfigurations(registrations, { name: 'demo', target, annotations: { 'a b': 'x' } }),
    ).toThrow(/"a b" is not a valid annotation key/);
  });
});
