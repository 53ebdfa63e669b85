import type { Clientset } from '@k/clientset';
import type {
  MutatingWebhook,
  MutatingWebhookConfiguration,
  RuleWithOperations,
  ValidatingWebhook,
  ValidatingWebhookConfiguration,
  WebhookClientConfig,
} from '@k/clientset/admissionregistration/v1';
import type {
  CustomResourceConversion,
  CustomResourceDefinition,
} from '@k/clientset/apiextensions/v1';
import { isNotFound } from '@k/rest';
import { RuntimeError } from '../errors.js';
import {
  caBundleOf,
  checkName,
  checkPathStart,
  checkServicePath,
  checkUrl,
  configurationError,
  isList,
  isDns1035Label,
  isQualifiedName,
  isDns1123Label,
  labelMapOf,
  matchConditionsOf,
  oneOf,
  selectorOf,
  timeoutOf,
} from './webhook-configuration-checks.js';
import type { AdmissionOperation, WebhookRegistration } from './webhook-handler.js';
import { setOwn } from '../internal/set-own.js';

/** WebhookServiceTarget is the in-cluster Service in front of the webhook server. */
export interface WebhookServiceTarget {
  readonly namespace: string;
  readonly name: string;
  /** port of the Service (default 443, as the API server assumes). */
  readonly port?: number | undefined;
}

/**
 * WebhookTarget is where the API server sends webhook calls: a Service (`{ service }`, the usual
 * in-cluster case) or a URL (`{ url: 'https://host:port[/prefix]' }`, for a server outside the
 * cluster). Each webhook's path is appended to either.
 */
export type WebhookTarget =
  | { readonly service: WebhookServiceTarget; readonly url?: undefined }
  | { readonly url: string; readonly service?: undefined };

/** WebhookConfigurationOptions say what {@link webhookConfigurations} writes around the registrations. */
export interface WebhookConfigurationOptions {
  /**
   * name is the `metadata.name` of both the ValidatingWebhookConfiguration and the
   * MutatingWebhookConfiguration (two kinds, so one name serves both; usually the operator's name).
   */
  readonly name: string;
  readonly target: WebhookTarget;
  /**
   * caBundle is the CA that signed the webhook server's certificate: PEM text, or PEM encoded in
   * base64 (what `caBundle` holds in the API). Leave it out when something else injects it
   * (cert-manager's `cert-manager.io/inject-ca-from`) or the server's certificate chains to the
   * API server's system roots.
   */
  readonly caBundle?: string | undefined;
  /** labels of both configurations. */
  readonly labels?: Readonly<Record<string, string>> | undefined;
  /**
   * annotations of both configurations, e.g. cert-manager's
   * `{ 'cert-manager.io/inject-ca-from': '<namespace>/<certificate>' }`, whose CA injector then
   * fills every webhook's `caBundle`.
   */
  readonly annotations?: Readonly<Record<string, string>> | undefined;
}

/** CrdConversion is the `spec.conversion` of one CustomResourceDefinition, named `<plural>.<group>`. */
export interface CrdConversion {
  readonly crdName: string;
  /** versions the converters cover: every version the CRD serves must be one of them. */
  readonly versions: readonly string[];
  readonly conversion: CustomResourceConversion;
}

/**
 * WebhookConfigurations are the objects that register a webhook server with the API server: a
 * configuration per admission kind (undefined when no webhook of that kind is registered) and a
 * `spec.conversion` per CustomResourceDefinition with a conversion webhook.
 */
export interface WebhookConfigurations {
  readonly validating: ValidatingWebhookConfiguration | undefined;
  readonly mutating: MutatingWebhookConfiguration | undefined;
  readonly conversions: readonly CrdConversion[];
}

const ADMISSION_API_VERSION = 'admissionregistration.k8s.io/v1';
const CRD_API_VERSION = 'apiextensions.k8s.io/v1';
const OPERATIONS: readonly AdmissionOperation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

/**
 * webhookConfigurations writes the webhook configurations of `registrations`, one webhook entry
 * per admission registration (in their order) and one conversion per CRD, with the defaults
 * controller-runtime's markers give: failurePolicy `Fail`, sideEffects `None`, timeoutSeconds 10,
 * matchPolicy `Equivalent`, admissionReviewVersions and conversionReviewVersions `['v1']`,
 * reinvocationPolicy `Never` (mutating), a rule for the resource's group, version and plural (its
 * `subresources` as `<plural>/<subresource>`) with the operations the handlers cover and the
 * resource's scope. A webhook's name defaults to `<validate|mutate>.<plural>.<group or core>`.
 * What the API server would refuse (a name that is not a DNS subdomain of three segments or more,
 * two webhooks or two conversions of one name, a timeout outside 1–30 s, an https URL with a
 * query, a malformed selector, …) throws a RuntimeError `ERR_RUNTIME_CONFIGURATION` here instead.
 * Pure: it sends nothing (see {@link applyWebhookConfigurations} and {@link webhookManifests}).
 */
export function webhookConfigurations(
  registrations: readonly WebhookRegistration[],
  options: WebhookConfigurationOptions,
): WebhookConfigurations {
  if (!isList(registrations)) {
    throw new RuntimeError('ERR_RUNTIME_INVALID_ARGUMENT', 'registrations must be an array');
  }
  if (typeof options !== 'object' || options === null) {
    throw new RuntimeError('ERR_RUNTIME_INVALID_ARGUMENT', 'options must be an object');
  }
  checkName(options.name, 'the webhook configurations’ name');
  const clientConfig = clientConfigFor(options.target, caBundleOf(options.caBundle));
  const metadata = {
    name: options.name,
    ...labelsOf(options.labels),
    ...annotationsOf(options.annotations),
  };
  const validating: ValidatingWebhook[] = [];
  const mutating: MutatingWebhook[] = [];
  const conversions: CrdConversion[] = [];
  const names = { validating: new Set<string>(), mutating: new Set<string>() };
  const crdNames = new Set<string>();
  for (const registration of registrations) {
    if (registration.type === 'conversion') {
      checkName(registration.crdName, 'the CustomResourceDefinition name', 3);
      if (crdNames.has(registration.crdName)) {
        throw configurationError(
          `two conversion webhooks are registered for ${registration.crdName}`,
        );
      }
      crdNames.add(registration.crdName);
      conversions.push({
        crdName: registration.crdName,
        versions: [...registration.versions],
        conversion: {
          strategy: 'Webhook',
          webhook: {
            clientConfig: clientConfig(registration.path),
            conversionReviewVersions: ['v1'],
          },
        },
      });
      continue;
    }
    const type: unknown = registration.type;
    if (type !== 'validating' && type !== 'mutating') {
      throw configurationError(`unknown webhook type ${JSON.stringify(type)}`);
    }
    const webhook = admissionWebhook(registration, clientConfig);
    const seen = names[type];
    if (seen.has(webhook.name)) {
      throw configurationError(
        `two ${registration.type} webhooks are named ${webhook.name}: give one another \`name\``,
      );
    }
    seen.add(webhook.name);
    if (registration.type === 'mutating') {
      const reinvocationPolicy = oneOf(
        registration.options.reinvocationPolicy,
        ['Never', 'IfNeeded'],
        'Never',
        `mutating webhook ${webhook.name}: reinvocationPolicy`,
      );
      mutating.push({ ...webhook, reinvocationPolicy });
    } else {
      if (registration.options.reinvocationPolicy !== undefined) {
        throw configurationError(
          `${webhook.name}: reinvocationPolicy is for mutating webhooks only`,
        );
      }
      validating.push(webhook);
    }
  }
  return {
    validating:
      validating.length === 0
        ? undefined
        : {
            apiVersion: ADMISSION_API_VERSION,
            kind: 'ValidatingWebhookConfiguration',
            metadata: structuredClone(metadata),
            webhooks: validating,
          },
    mutating:
      mutating.length === 0
        ? undefined
        : {
            apiVersion: ADMISSION_API_VERSION,
            kind: 'MutatingWebhookConfiguration',
            metadata: structuredClone(metadata),
            webhooks: mutating,
          },
    conversions,
  };
}

/** ApplyWebhookConfigurationsOptions configure {@link applyWebhookConfigurations}. */
export interface ApplyWebhookConfigurationsOptions {
  /** fieldManager owns the applied fields (default `k-webhooks`). */
  readonly fieldManager?: string | undefined;
  /** force takes over fields another manager owns (default true: the running operator is the authority on its webhooks). */
  readonly force?: boolean | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** AppliedWebhookConfigurations are the objects as the API server stored them. */
export interface AppliedWebhookConfigurations {
  readonly validating: ValidatingWebhookConfiguration | undefined;
  readonly mutating: MutatingWebhookConfiguration | undefined;
  readonly crds: readonly CustomResourceDefinition[];
}

/**
 * applyWebhookConfigurations installs `configurations` with server-side apply: each
 * configuration whole (a webhook this field manager applied before and no longer sends is
 * removed; one that is undefined is left as it is on the server), and for each conversion only
 * `spec.conversion` of its CustomResourceDefinition, which must exist (it is read first: a
 * missing one fails with a RuntimeError `ERR_RUNTIME_CONFIGURATION` naming it, before anything
 * is applied; so does one that serves a version the conversion webhook has no converter for,
 * the RuntimeError names them). Conversions go first, so admission webhooks are never installed
 * for a CRD whose conversion failed. Applying the same configurations again changes nothing
 * (no new resourceVersion). The server's errors (`ApiError`) pass through.
 */
export async function applyWebhookConfigurations(
  clientset: Clientset,
  configurations: WebhookConfigurations,
  options: ApplyWebhookConfigurationsOptions = {},
): Promise<AppliedWebhookConfigurations> {
  const fieldManager = options.fieldManager ?? 'k-webhooks';
  const apply = { fieldManager, force: options.force ?? true, signal: options.signal };
  const crds = clientset.apiextensionsV1.customResourceDefinitions();
  const read = new Map<string, CustomResourceDefinition>();
  for (const { crdName, versions } of configurations.conversions) {
    let crd: CustomResourceDefinition;
    try {
      crd = await crds.get(crdName, { signal: options.signal });
      read.set(crdName, crd);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      throw new RuntimeError(
        'ERR_RUNTIME_CONFIGURATION',
        `the CustomResourceDefinition ${crdName} does not exist: install it before its conversion webhook`,
        { cause: error },
      );
    }
    const uncovered = (crd.spec.versions ?? [])
      .filter((version) => version.served && !versions.includes(version.name))
      .map((version) => version.name);
    if (uncovered.length > 0) {
      throw configurationError(
        `the CustomResourceDefinition ${crdName} serves ${uncovered.join(', ')}, which its conversion webhook has no converter for (it converts ${versions.join(', ')})`,
      );
    }
  }
  const applied: CustomResourceDefinition[] = [];
  for (const { crdName, conversion } of configurations.conversions) {
    await dropOtherTarget(crds, read.get(crdName), conversion, options.signal);
    applied.push(
      await crds.apply(
        {
          apiVersion: CRD_API_VERSION,
          kind: 'CustomResourceDefinition',
          metadata: { name: crdName },
          spec: { conversion },
        },
        apply,
      ),
    );
  }
  const admission = clientset.admissionregistrationV1;
  return {
    validating:
      configurations.validating &&
      (await admission.validatingWebhookConfigurations().apply(
        {
          ...configurations.validating,
          apiVersion: ADMISSION_API_VERSION,
          kind: 'ValidatingWebhookConfiguration',
          metadata: metadataOf(configurations.validating),
        },
        apply,
      )),
    mutating:
      configurations.mutating &&
      (await admission.mutatingWebhookConfigurations().apply(
        {
          ...configurations.mutating,
          apiVersion: ADMISSION_API_VERSION,
          kind: 'MutatingWebhookConfiguration',
          metadata: metadataOf(configurations.mutating),
        },
        apply,
      )),
    crds: applied,
  };
}

/**
 * dropOtherTarget removes the CRD's conversion target of the other form (a Service where `conversion`
 * names a URL, or the reverse) with a merge patch: the manifest that installed the CRD (another
 * field manager) owns it, so an apply would keep it beside the new one and the API server refuses
 * a webhook with both (`exactly one of url or service is required`).
 */
async function dropOtherTarget(
  crds: ReturnType<Clientset['apiextensionsV1']['customResourceDefinitions']>,
  crd: CustomResourceDefinition | undefined,
  conversion: CustomResourceConversion,
  signal: AbortSignal | undefined,
): Promise<void> {
  const current = crd?.spec.conversion?.webhook?.clientConfig;
  const wanted = conversion.webhook?.clientConfig;
  if (!crd?.metadata?.name || !current || !wanted) return;
  const other = wanted.url !== undefined ? 'service' : 'url';
  if (current[other] === undefined) return;
  await crds.patch(
    crd.metadata.name,
    'merge',
    { spec: { conversion: { webhook: { clientConfig: { [other]: null, ...wanted } } } } },
    { signal },
  );
}

/** metadataOf is what is applied of a configuration's metadata: its name, labels and annotations. */
function metadataOf(configuration: ValidatingWebhookConfiguration | MutatingWebhookConfiguration): {
  name: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
} {
  const { name, labels, annotations } = configuration.metadata ?? {};
  if (!name)
    throw configurationError(
      `a ${configuration.kind ?? 'webhook configuration'} without metadata.name`,
    );
  return { name, ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) };
}

/**
 * webhookManifests writes `configurations` as multi-document YAML for a `deploy/` folder: the
 * ValidatingWebhookConfiguration, the MutatingWebhookConfiguration, then per conversion a
 * CustomResourceDefinition document holding only `spec.conversion`. That last one is a patch,
 * not a whole CRD: merge it into the CRD's manifest (a kustomize `patches:` entry, as kubebuilder
 * does), apply it server-side to an installed CRD (`kubectl apply --server-side -f`, which keeps
 * the CRD's other fields) or `kubectl patch crd <name> --type merge --patch-file <file>`, but
 * never in the same server-side apply as the whole CRD under one field manager (`kubectl apply
 * --server-side -f crd.yaml -f webhooks.yaml`): the later document replaces the earlier, and the
 * CRD loses everything but its conversion. A comment above it says so. Empty configurations give an empty string. Loads the YAML writer on
 * first use, so importing this module costs nothing more.
 */
export async function webhookManifests(configurations: WebhookConfigurations): Promise<string> {
  const { Document } = await import('@k/config/yaml-guards');
  const documents: InstanceType<typeof Document>[] = [];
  for (const configuration of [configurations.validating, configurations.mutating]) {
    if (configuration !== undefined) documents.push(new Document(configuration));
  }
  for (const { crdName, conversion } of configurations.conversions) {
    const document = new Document({
      apiVersion: CRD_API_VERSION,
      kind: 'CustomResourceDefinition',
      metadata: { name: crdName },
      spec: { conversion },
    });
    document.commentBefore =
      ` The conversion webhook of ${crdName}: a patch of that CRD, not a whole one.\n` +
      ` Merge it into the CRD's manifest, or on a cluster where the CRD is installed:\n` +
      ` kubectl apply --server-side -f <this file>  (or kubectl patch crd ${crdName} --type merge --patch-file <this document>)\n` +
      ` Never in the same server-side apply as the whole CRD: it would replace the CRD with this.`;
    documents.push(document);
  }
  return documents.map((document) => document.toString({ lineWidth: 0 })).join('---\n');
}

type AdmissionRegistration = Extract<WebhookRegistration, { type: 'validating' | 'mutating' }>;

function admissionWebhook(
  registration: AdmissionRegistration,
  clientConfig: (path: string) => WebhookClientConfig,
): ValidatingWebhook {
  const { resource, options } = registration;
  const name =
    options.name ??
    `${registration.type === 'validating' ? 'validate' : 'mutate'}.${resource.plural}.${resource.group || 'core'}`;
  checkName(name, `the ${registration.type} webhook name`, 3);
  const at = `${registration.type} webhook ${name}`;
  const webhook: ValidatingWebhook = {
    name,
    clientConfig: clientConfig(registration.path),
    rules: [ruleOf(registration, at)],
    failurePolicy: oneOf(options.failurePolicy, ['Fail', 'Ignore'], 'Fail', `${at}: failurePolicy`),
    sideEffects: oneOf(options.sideEffects, ['None', 'NoneOnDryRun'], 'None', `${at}: sideEffects`),
    timeoutSeconds: timeoutOf(options.timeoutSeconds, at),
    matchPolicy: oneOf(
      options.matchPolicy,
      ['Equivalent', 'Exact'],
      'Equivalent',
      `${at}: matchPolicy`,
    ),
    admissionReviewVersions: ['v1'],
  };
  if (options.namespaceSelector !== undefined) {
    webhook.namespaceSelector = selectorOf(options.namespaceSelector, `${at}: namespaceSelector`);
  }
  if (options.objectSelector !== undefined) {
    webhook.objectSelector = selectorOf(options.objectSelector, `${at}: objectSelector`);
  }
  if (options.matchConditions !== undefined) {
    webhook.matchConditions = matchConditionsOf(options.matchConditions, at);
  }
  return webhook;
}

function ruleOf(registration: AdmissionRegistration, at: string): RuleWithOperations {
  const { resource, operations } = registration;
  if (!isList(operations) || operations.length === 0) {
    throw configurationError(
      `${at}: no operations (the handlers cover none of ${OPERATIONS.join(', ')})`,
    );
  }
  for (const operation of operations) {
    if (!OPERATIONS.includes(operation)) {
      throw configurationError(`${at}: unknown operation ${JSON.stringify(operation)}`);
    }
  }
  if (!resource.plural || !resource.version) {
    throw configurationError(`${at}: the resource has no plural or version`);
  }
  const subresources = registration.options.subresources ?? [];
  const resources = [resource.plural];
  for (const subresource of subresources) {
    if (typeof subresource !== 'string' || subresource === '' || subresource.includes('/')) {
      throw configurationError(`${at}: invalid subresource ${JSON.stringify(subresource)}`);
    }
    const entry = `${resource.plural}/${subresource}`;
    if (resources.includes(entry))
      throw configurationError(`${at}: subresource ${subresource} twice`);
    resources.push(entry);
  }
  if (subresources.includes('*') && subresources.length > 1) {
    throw configurationError(`${at}: subresource '*' already covers every other subresource`);
  }
  return {
    apiGroups: [resource.group],
    apiVersions: [resource.version],
    resources,
    operations: [...new Set(operations)],
    scope: resource.namespaced ? 'Namespaced' : 'Cluster',
  };
}

function labelsOf(labels: WebhookConfigurationOptions['labels']): {
  labels?: Record<string, string>;
} {
  return labels === undefined ? {} : { labels: labelMapOf(labels, 'labels') };
}

function annotationsOf(annotations: WebhookConfigurationOptions['annotations']): {
  annotations?: Record<string, string>;
} {
  if (annotations === undefined) return {};
  if (typeof annotations !== 'object' || annotations === null || isList(annotations)) {
    throw configurationError('annotations must be an object of annotation keys to values');
  }
  const copy: Record<string, string> = {};
  for (const [key, value] of Object.entries(annotations)) {
    if (!isQualifiedName(key))
      throw configurationError(`annotations: ${JSON.stringify(key)} is not a valid annotation key`);
    if (typeof value !== 'string')
      throw configurationError(`annotations: the value of ${key} is not a string`);
    setOwn(copy, key, value);
  }
  return { annotations: copy };
}

function clientConfigFor(
  target: WebhookTarget,
  caBundle: string | undefined,
): (path: string) => WebhookClientConfig {
  if (typeof target !== 'object' || target === null) {
    throw configurationError('target must be { service: { namespace, name, port? } } or { url }');
  }
  const ca = caBundle === undefined ? {} : { caBundle };
  if (target.service !== undefined && target.url !== undefined) {
    throw configurationError('target takes a service or a url, not both');
  }
  if (target.url !== undefined) {
    const base = checkUrl(target.url);
    return (path) => {
      checkPathStart(path);
      return { url: base + path, ...ca };
    };
  }
  const service = target.service;
  if (typeof service !== 'object' || service === null) {
    throw configurationError('target must be { service: { namespace, name, port? } } or { url }');
  }
  if (!isDns1123Label(service.namespace)) {
    throw configurationError(
      `target.service.namespace ${JSON.stringify(service.namespace)} is not a namespace name`,
    );
  }
  if (!isDns1035Label(service.name)) {
    throw configurationError(
      `target.service.name ${JSON.stringify(service.name)} is not a Service name`,
    );
  }
  const port = service.port ?? 443;
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw configurationError(
      `target.service.port must be a port number from 1 to 65535, not ${port}`,
    );
  }
  return (path) => {
    checkServicePath(path);
    return {
      service: { namespace: service.namespace, name: service.name, path, port },
      ...ca,
    };
  };
}
