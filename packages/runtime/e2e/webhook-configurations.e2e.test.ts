import { randomUUID } from 'node:crypto';
import { applyManifests, ignoreNotFound, type Clientset } from '@k/clientset';
import type { CustomResourceDefinition } from '@k/clientset/apiextensions/v1';
import { createTestCertificates, caught } from '@k/test-utils';
import { isInvalid, isNotFound } from '@k/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeError } from '../src/errors.js';
import type { WebhookRegistration } from '../src/webhook/webhook-handler.js';
import {
  applyWebhookConfigurations,
  webhookConfigurations,
  webhookManifests,
  type WebhookConfigurationOptions,
} from '../src/webhook/webhook-configurations.js';
import { clientsetFor } from './helpers.js';

// The configurations webhookConfigurations writes, applied to the real kube-apiserver: the server
// accepts every field and keeps it as written, a second apply changes nothing, and SSA of just
// `spec.conversion` leaves the rest of the CRD alone. The server never calls these webhooks:
// their rules name only this file's CRD, their objectSelector matches no object, their failure
// policy is Ignore, and no object of the CRD is ever made (conversion is called for objects only).
const suffix = randomUUID().slice(0, 8);
const group = `h4-${suffix}.webhooks.k.example`;
const crdName = `gizmos.${group}`;
const name = `k-e2e-webhooks-${suffix}`;
let clientset: Clientset;
const created: { validating: string[]; mutating: string[]; crds: string[] } = {
  validating: [],
  mutating: [],
  crds: [],
};

const gizmos = {
  group,
  version: 'v1',
  kind: 'Gizmo',
  plural: 'gizmos',
  namespaced: true,
} as const;

function crd(versions: readonly string[], crdNameOverride = crdName): CustomResourceDefinition {
  const [plural, ...groupParts] = crdNameOverride.split('.');
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: crdNameOverride },
    spec: {
      group: groupParts.join('.'),
      names: { kind: 'Gizmo', listKind: 'GizmoList', plural: plural!, singular: 'gizmo' },
      scope: 'Namespaced',
      versions: versions.map((version, index) => ({
        name: version,
        served: true,
        storage: index === 0,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        },
        subresources: { status: {} },
      })),
    },
  };
}

const neverMatches = {
  failurePolicy: 'Ignore',
  objectSelector: { matchExpressions: [{ key: `k-e2e/${suffix}`, operator: 'Exists' }] },
} as const;

const registrations: WebhookRegistration[] = [
  {
    type: 'validating',
    path: `/validate-${group.replaceAll('.', '-')}-v1-gizmo`,
    resource: gizmos,
    operations: ['CREATE', 'UPDATE', 'DELETE'],
    options: {
      ...neverMatches,
      timeoutSeconds: 5,
      matchPolicy: 'Exact',
      sideEffects: 'NoneOnDryRun',
      subresources: ['status'],
      namespaceSelector: {
        matchLabels: { 'k-e2e/team': 'a' },
        matchExpressions: [
          { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] },
        ],
      },
      matchConditions: [
        { name: 'not-a-node', expression: "!request.userInfo.username.startsWith('system:node:')" },
        { name: 'k-e2e/has-spec', expression: '!has(object.spec) || object.spec != null' },
      ],
    },
  },
  {
    type: 'validating',
    path: `/validate-${group.replaceAll('.', '-')}-v1-gizmo-delete`,
    resource: gizmos,
    operations: ['DELETE'],
    options: { ...neverMatches, name: `deletes.gizmos.${group}` },
  },
  {
    type: 'mutating',
    path: `/mutate-${group.replaceAll('.', '-')}-v1-gizmo`,
    resource: gizmos,
    operations: ['CREATE'],
    options: { ...neverMatches, reinvocationPolicy: 'IfNeeded' },
  },
  { type: 'conversion', path: '/convert', crdName, versions: ['v1', 'v1alpha1'] },
];

let options: WebhookConfigurationOptions;

beforeAll(async () => {
  clientset = await clientsetFor();
  const { caPem } = createTestCertificates([`DNS:webhooks.k-e2e-${suffix}.svc`]);
  options = {
    name,
    target: { service: { namespace: `k-e2e-${suffix}`, name: 'webhooks', port: 9443 } },
    caBundle: caPem,
    labels: { 'app.kubernetes.io/name': 'k-e2e', 'k-e2e/run': suffix },
  };
  await clientset.apiextensionsV1.customResourceDefinitions().create(crd(['v1', 'v1alpha1']));
  created.crds.push(crdName);
});

afterAll(async () => {
  if (!clientset) return;
  const admission = clientset.admissionregistrationV1;
  await Promise.all([
    ...created.validating.map((configuration) =>
      ignoreNotFound(admission.validatingWebhookConfigurations().delete(configuration)),
    ),
    ...created.mutating.map((configuration) =>
      ignoreNotFound(admission.mutatingWebhookConfigurations().delete(configuration)),
    ),
    ...created.crds.map((crdToDelete) =>
      ignoreNotFound(clientset.apiextensionsV1.customResourceDefinitions().delete(crdToDelete)),
    ),
  ]);
  await clientset.close();
});

describe('webhook configurations on the real API server', () => {
  it('are accepted as written, leave the rest of the CRD alone, and a second apply changes nothing', async () => {
    const configurations = webhookConfigurations(registrations, options);
    created.validating.push(name);
    created.mutating.push(name);
    const applied = await applyWebhookConfigurations(clientset, configurations);
    expect(applied.crds).toHaveLength(1);

    const admission = clientset.admissionregistrationV1;
    const crds = clientset.apiextensionsV1.customResourceDefinitions();
    const validating = await admission.validatingWebhookConfigurations().get(name);
    const mutating = await admission.mutatingWebhookConfigurations().get(name);
    const stored = await crds.get(crdName);

    // Every field written is stored as written, webhooks in order (toMatchObject holds arrays to
    // their length); the server only adds its defaults (an empty namespaceSelector where none is set).
    expect(validating).toMatchObject(configurations.validating!);
    expect(mutating).toMatchObject(configurations.mutating!);
    expect(validating.webhooks?.[1]?.namespaceSelector).toEqual({});
    expect(stored.spec.conversion).toEqual(configurations.conversions[0]!.conversion);
    // SSA of spec.conversion alone kept the CRD's other fields.
    expect(stored.spec.group).toBe(group);
    expect(stored.spec.names.plural).toBe('gizmos');
    expect(stored.spec.versions.map((version) => version.name)).toEqual(['v1', 'v1alpha1']);
    for (const object of [validating, mutating, stored]) {
      expect(object.metadata?.managedFields?.map((entry) => entry.manager)).toContain('k-webhooks');
    }
    expect(applied.validating?.metadata?.resourceVersion).toBe(
      validating.metadata?.resourceVersion,
    );

    const again = await applyWebhookConfigurations(
      clientset,
      webhookConfigurations(registrations, options),
    );
    expect(again.validating?.metadata?.resourceVersion).toBe(validating.metadata?.resourceVersion);
    expect(again.mutating?.metadata?.resourceVersion).toBe(mutating.metadata?.resourceVersion);
    expect(again.crds[0]?.metadata?.resourceVersion).toBe(stored.metadata?.resourceVersion);
  });

  it('removes a webhook this field manager applied before and no longer sends', async () => {
    const fewer = registrations.filter(
      (registration) =>
        registration.type !== 'validating' || registration.options.name === undefined,
    );
    await applyWebhookConfigurations(clientset, webhookConfigurations(fewer, options));
    const validating = await clientset.admissionregistrationV1
      .validatingWebhookConfigurations()
      .get(name);
    expect(validating.webhooks?.map((webhook) => webhook.name)).toEqual([
      `validate.gizmos.${group}`,
    ]);
  });

  it('takes a URL target and another field manager', async () => {
    const urlName = `${name}-url`;
    created.validating.push(urlName);
    const configurations = webhookConfigurations(registrations.slice(0, 1), {
      name: urlName,
      target: { url: 'https://127.0.0.1:1/k-e2e' },
    });
    const applied = await applyWebhookConfigurations(clientset, configurations, {
      fieldManager: 'k-e2e-url',
    });
    expect(applied.validating).toMatchObject(configurations.validating!);
    expect(applied.validating?.metadata?.managedFields?.map((entry) => entry.manager)).toEqual([
      'k-e2e-url',
    ]);
  });

  it('moves a CRD whose manifest names a Service to a URL target (and back), though another manager owns the Service', async () => {
    const movedCrd = `gizmos.moved-${suffix}.webhooks.k.example`;
    const manifest = crd(['v1', 'v1alpha1'], movedCrd);
    const withService: CustomResourceDefinition = {
      ...manifest,
      spec: {
        ...manifest.spec,
        conversion: {
          strategy: 'Webhook',
          webhook: {
            conversionReviewVersions: ['v1'],
            clientConfig: {
              service: { namespace: 'elsewhere', name: 'webhooks', path: '/convert' },
            },
          },
        },
      },
    };
    // As `kubectl apply --server-side -f crd.yaml` would: another field manager owns `service`.
    await clientset.applyManifests(JSON.stringify(withService), {
      fieldManager: 'kubectl',
      force: true,
    });
    created.crds.push(movedCrd);
    const conversion = registrations.find((registration) => registration.type === 'conversion')!;
    const moved = { ...conversion, crdName: movedCrd };
    const byUrl = await applyWebhookConfigurations(
      clientset,
      webhookConfigurations([moved], { name, target: { url: 'https://127.0.0.1:1/k-e2e' } }),
    );
    expect(byUrl.crds[0]?.spec.conversion?.webhook?.clientConfig).toEqual({
      url: 'https://127.0.0.1:1/k-e2e/convert',
    });
    const byService = await applyWebhookConfigurations(
      clientset,
      webhookConfigurations([moved], options),
    );
    expect(byService.crds[0]?.spec.conversion?.webhook?.clientConfig?.url).toBeUndefined();
    expect(byService.crds[0]?.spec.conversion?.webhook?.clientConfig?.service?.namespace).toBe(
      `k-e2e-${suffix}`,
    );
    expect(byService.crds[0]?.spec.versions.map((version) => version.name)).toEqual([
      'v1',
      'v1alpha1',
    ]);
  });

  it('passes on the server’s refusal of what only it can check (a CEL matchCondition that does not compile)', async () => {
    const celName = `${name}-cel`;
    created.validating.push(celName);
    const [first] = registrations;
    const error = await caught(
      applyWebhookConfigurations(
        clientset,
        webhookConfigurations(
          [
            {
              ...first!,
              options: {
                ...neverMatches,
                matchConditions: [{ name: 'broken', expression: 'object.(' }],
              },
            } as WebhookRegistration,
          ],
          { ...options, name: celName },
        ),
      ),
    );
    expect(isInvalid(error), String(error)).toBe(true);
    expect((error as Error).message).toContain('matchConditions[0].expression');
  });

  it('fails on a missing CRD, naming it, before applying anything', async () => {
    const missing = `missing.${group}`;
    const lonelyName = `${name}-missing`;
    created.validating.push(lonelyName);
    const error = await caught(
      applyWebhookConfigurations(
        clientset,
        webhookConfigurations(
          [
            registrations[0]!,
            { type: 'conversion', path: '/convert', crdName: missing, versions: ['v1'] },
          ],
          { ...options, name: lonelyName },
        ),
      ),
    );
    expect(RuntimeError.isInstance(error) && error.code).toBe('ERR_RUNTIME_CONFIGURATION');
    expect((error as Error).message).toContain(
      `the CustomResourceDefinition ${missing} does not exist`,
    );
    expect(isNotFound((error as Error).cause)).toBe(true);
    const notApplied = await caught(
      clientset.admissionregistrationV1.validatingWebhookConfigurations().get(lonelyName),
    );
    expect(isNotFound(notApplied)).toBe(true);
  });

  it('fails on a CRD serving a version the conversion has no converter for', async () => {
    const error = await caught(
      applyWebhookConfigurations(
        clientset,
        webhookConfigurations(
          [{ type: 'conversion', path: '/convert', crdName, versions: ['v1'] }],
          options,
        ),
      ),
    );
    expect(RuntimeError.isInstance(error) && error.code).toBe('ERR_RUNTIME_CONFIGURATION');
    expect((error as Error).message).toContain(`${crdName} serves v1alpha1`);
  });

  it('writes manifests that server-side apply takes as they are, the CRD patch included', async () => {
    const patchedName = `widgets.${group}`;
    await clientset.apiextensionsV1
      .customResourceDefinitions()
      .create(crd(['v1', 'v1alpha1'], patchedName));
    created.crds.push(patchedName);
    const manifestName = `${name}-manifests`;
    created.validating.push(manifestName);
    created.mutating.push(manifestName);
    const configurations = webhookConfigurations(
      [
        ...registrations.filter((registration) => registration.type !== 'conversion'),
        {
          type: 'conversion',
          path: '/convert',
          crdName: patchedName,
          versions: ['v1', 'v1alpha1'],
        },
      ],
      { ...options, name: manifestName },
    );
    const text = await webhookManifests(configurations);
    const applied = await applyManifests(clientset.dynamic, text, {
      fieldManager: 'k-e2e-manifests',
      force: true,
      waitForEstablished: false,
    });
    expect(applied.map((entry) => entry.object.kind)).toEqual([
      'ValidatingWebhookConfiguration',
      'MutatingWebhookConfiguration',
      'CustomResourceDefinition',
    ]);
    const stored = await clientset.apiextensionsV1.customResourceDefinitions().get(patchedName);
    expect(stored.spec.conversion).toEqual(configurations.conversions[0]!.conversion);
    expect(stored.spec.versions.map((version) => version.name)).toEqual(['v1', 'v1alpha1']);
    const validating = await clientset.admissionregistrationV1
      .validatingWebhookConfigurations()
      .get(manifestName);
    expect(validating).toMatchObject(configurations.validating!);
  });
});
