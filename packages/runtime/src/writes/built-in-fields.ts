/**
 * FieldPath is where a value sits in an object: its field names from the object's root, map
 * keys as they are, list positions left out (`['spec', 'template', 'spec', 'containers',
 * 'ports']`; the elements of a list have the list's path). The array a callback receives is
 * valid during the call only (it is reused as the walk goes on): copy it to keep it.
 */
export type FieldPath = readonly string[];

/** GroupKind is the API group (`''` for the core group) and kind of the object compared (apimachinery's `schema.GroupKind`). */
export interface GroupKind {
  readonly group: string;
  readonly kind: string;
}

/**
 * ListType is how server-side apply merges a list, as its OpenAPI schema says with
 * `x-kubernetes-list-type`: `atomic`, replaced whole by one owner; `set`, scalars each owned
 * apart; `map`, elements owned apart and matched by their `keys` (`x-kubernetes-list-map-keys`),
 * a key an element leaves out counting as its `keyDefaults` value when it has one (the server
 * defaults a port's `protocol` to `TCP` before it merges).
 */
export type ListType =
  | { readonly type: 'atomic' }
  | { readonly type: 'set' }
  | {
      readonly type: 'map';
      readonly keys: readonly string[];
      readonly keyDefaults?: Readonly<Record<string, string | number | boolean>> | undefined;
    };

/**
 * A rule of the tables below: `path` (dot-separated field names, `*` for any one) matches the
 * end of a {@link FieldPath}; with `kinds`, only in objects of those kinds of `group`.
 */
interface FieldRule<T> {
  readonly path: readonly string[];
  readonly group?: string;
  readonly kinds?: readonly string[];
  readonly value: T;
}

function rule<T>(path: string, value: T, kinds?: `${string}/${string}`): FieldRule<T> {
  if (kinds === undefined) return { path: path.split('.'), value };
  const slash = kinds.indexOf('/');
  return {
    path: path.split('.'),
    group: kinds.slice(0, slash),
    kinds: kinds.slice(slash + 1).split(','),
    value,
  };
}

/** weight orders rules: one for the object's kind before one for any kind, then the one matching more fields. */
function weight<T>(fieldRule: FieldRule<T>): number {
  return (fieldRule.kinds ? 1000 : 0) + fieldRule.path.length;
}

/** FieldRules finds the heaviest rule (see {@link weight}) that matches a path. */
class FieldRules<T> {
  /** The rules by the last field of their path, heaviest first. */
  readonly #byLastField = new Map<string, FieldRule<T>[]>();

  constructor(rules: readonly FieldRule<T>[]) {
    for (const fieldRule of rules) {
      const last = fieldRule.path.at(-1)!;
      const bucket = this.#byLastField.get(last) ?? [];
      bucket.push(fieldRule);
      this.#byLastField.set(last, bucket);
    }
    for (const bucket of this.#byLastField.values()) bucket.sort((a, b) => weight(b) - weight(a));
  }

  find(path: FieldPath, type: GroupKind): T | undefined {
    const last = path.at(-1);
    if (last === undefined) return undefined;
    const named = this.#byLastField.get(last)?.find((candidate) => matches(candidate, path, type));
    const any = this.#byLastField.get('*')?.find((candidate) => matches(candidate, path, type));
    if (named === undefined || any === undefined) return (named ?? any)?.value;
    return weight(any) > weight(named) ? any.value : named.value;
  }
}

function matches<T>(fieldRule: FieldRule<T>, path: FieldPath, type: GroupKind): boolean {
  if (fieldRule.kinds && (fieldRule.group !== type.group || !fieldRule.kinds.includes(type.kind))) {
    return false;
  }
  const offset = path.length - fieldRule.path.length;
  if (offset < 0) return false;
  return fieldRule.path.every((field, index) => field === '*' || field === path[offset + index]);
}

const SET: ListType = { type: 'set' };
export const ATOMIC: ListType = { type: 'atomic' };
const keyedBy = (...keys: string[]): ListType => ({ type: 'map', keys });
const BY_NAME = keyedBy('name');
const CONTAINER_PORTS: ListType = {
  type: 'map',
  keys: ['containerPort', 'protocol'],
  keyDefaults: { protocol: 'TCP' },
};
const SERVICE_PORTS: ListType = {
  type: 'map',
  keys: ['port', 'protocol'],
  keyDefaults: { protocol: 'TCP' },
};

/** The lists of a Container, under each field a Pod spec has containers in. */
const containerLists = ['containers', 'initContainers', 'ephemeralContainers'].flatMap((field) => [
  rule(`${field}.env`, BY_NAME),
  rule(`${field}.ports`, CONTAINER_PORTS),
]);

/**
 * The keyed lists and sets of the built-in kinds (Kubernetes 1.37's OpenAPI; every other list
 * is atomic). Written by the end of their path so that they also hold where a custom resource
 * embeds a built-in type (a Pod template's containers); names Kubernetes alone uses stand
 * alone (`initContainers`), common ones come with their parent (`spec.volumes`), and fields of
 * one kind's root name it. built-in-fields.test.ts checks the tables against every path of
 * every built-in kind in the recorded OpenAPI documents.
 */
const LIST_RULES = new FieldRules<ListType>([
  rule('metadata.ownerReferences', keyedBy('uid')),
  rule('metadata.finalizers', SET),
  // A Pod spec and its containers.
  rule('containers', BY_NAME),
  rule('initContainers', BY_NAME),
  rule('ephemeralContainers', BY_NAME),
  ...containerLists,
  rule('volumeMounts', keyedBy('mountPath')),
  rule('volumeMounts.bindMountOptions', SET),
  rule('volumeDevices', keyedBy('devicePath')),
  rule('resources.claims', BY_NAME),
  rule('restartPolicyRules.exitCodes.values', SET),
  rule('spec.volumes', BY_NAME),
  rule('spec.imagePullSecrets', BY_NAME),
  rule('spec.resourceClaims', BY_NAME),
  rule('hostAliases', keyedBy('ip')),
  rule('schedulingGates', BY_NAME),
  rule('evictionResponders', BY_NAME),
  rule('topologySpreadConstraints', keyedBy('topologyKey', 'whenUnsatisfiable')),
  // Statuses: conditions are keyed by type (a Job's are atomic).
  rule('conditions', keyedBy('type')),
  rule('status.conditions', ATOMIC, 'batch/Job'),
  rule('podIPs', keyedBy('ip')),
  rule('resourceClaimStatuses', BY_NAME),
  rule('allocatedResourcesStatus', BY_NAME),
  rule('allocatedResourcesStatus.resources', keyedBy('resourceID')),
  rule('volumeHealth', BY_NAME),
  rule('volumeHealth.healthConditions', keyedBy('status', 'reason')),
  rule('healthStatus.healthConditions', keyedBy('status', 'reason')),
  rule('nodeAllocatableResourceClaimStatuses', keyedBy('resourceClaimName')),
  rule('nodeAllocatableResourceClaimStatuses.containers', SET),
  rule('nodeAllocatableResourceClaimStatuses.mapping', BY_NAME),
  rule('nodeAllocatableResourceClaimStatuses.overhead', BY_NAME),
  // Other kinds.
  rule('spec.ports', SERVICE_PORTS, '/Service'),
  rule('secrets', BY_NAME, '/ServiceAccount'),
  rule('status.addresses', keyedBy('type'), '/Node'),
  rule('spec.podCIDRs', SET, '/Node'),
  rule('podPreemptionPolicy.disableResizePreemption', SET),
  rule('scheduling.resourceClaims', BY_NAME),
  rule('podFailurePolicy.rules.onExitCodes.values', SET),
  rule('uncountedTerminatedPods.failed', SET),
  rule('uncountedTerminatedPods.succeeded', SET),
  rule('endpoints.addresses', SET, 'discovery.k8s.io/EndpointSlice'),
  rule('webhooks', BY_NAME, 'admissionregistration.k8s.io/MutatingWebhookConfiguration'),
  rule('webhooks', BY_NAME, 'admissionregistration.k8s.io/ValidatingWebhookConfiguration'),
  rule('matchConditions', BY_NAME),
  rule('spec.variables', BY_NAME, 'admissionregistration.k8s.io/ValidatingAdmissionPolicy'),
  rule('spec.validationActions', SET),
  rule('x-kubernetes-validations', keyedBy('rule')),
  rule('spec.drivers', BY_NAME, 'storage.k8s.io/CSINode'),
  rule('storageHealth', BY_NAME),
  rule('spec.volumeLifecycleModes', SET, 'storage.k8s.io/CSIDriver'),
  ...['apiGroups', 'resources', 'verbs', 'namespaces'].map((field) =>
    rule(`rules.resourceRules.${field}`, SET, 'flowcontrol.apiserver.k8s.io/FlowSchema'),
  ),
  ...['verbs', 'nonResourceURLs'].map((field) =>
    rule(`rules.nonResourceRules.${field}`, SET, 'flowcontrol.apiserver.k8s.io/FlowSchema'),
  ),
  rule(
    'status.devices',
    keyedBy('driver', 'device', 'pool', 'shareID'),
    'resource.k8s.io/ResourceClaim',
  ),
  rule('reservedFor', keyedBy('uid')),
  rule('skipNodeOperations', SET),
]);

const RESOURCE_SLICE = 'resource.k8s.io/ResourceSlice';

function quantity(path: string, kinds?: `${string}/${string}`): FieldRule<true> {
  return rule(path, true, kinds);
}

/**
 * The fields of the built-in kinds whose schema is a `resource.Quantity` (Kubernetes 1.37), by
 * the end of their path as {@link LIST_RULES} are; `*` is a map's key (a resource name).
 */
const QUANTITY_RULES = new FieldRules<true>([
  // Containers, Pods and claims: requests, limits, overhead, volume sizes.
  quantity('resources.limits.*'),
  quantity('resources.requests.*'),
  quantity('resourceFieldRef.divisor'),
  quantity('emptyDir.sizeLimit'),
  quantity('spec.overhead.*'),
  quantity('overhead.podFixed.*'),
  quantity('allocatedResources.*'),
  quantity('status.capacity.*'),
  quantity('status.allocatable.*'),
  quantity('inlineVolumeSpec.capacity.*'),
  quantity('nodeAllocatableResourceClaimStatuses.mapping.quantity'),
  quantity('nodeAllocatableResourceClaimStatuses.overhead.perContainer'),
  quantity('nodeAllocatableResourceClaimStatuses.overhead.perPod'),
  // One kind each.
  quantity('spec.capacity.*', '/PersistentVolume'),
  quantity('spec.hard.*', '/ResourceQuota'),
  quantity('status.hard.*', '/ResourceQuota'),
  quantity('status.used.*', '/ResourceQuota'),
  ...['default', 'defaultRequest', 'max', 'min', 'maxLimitRequestRatio'].map((field) =>
    quantity(`spec.limits.${field}.*`, '/LimitRange'),
  ),
  ...['metrics.*.target', 'currentMetrics.*.current'].flatMap((parent) => [
    quantity(`${parent}.value`, 'autoscaling/HorizontalPodAutoscaler'),
    quantity(`${parent}.averageValue`, 'autoscaling/HorizontalPodAutoscaler'),
  ]),
  quantity('behavior.scaleUp.tolerance', 'autoscaling/HorizontalPodAutoscaler'),
  quantity('behavior.scaleDown.tolerance', 'autoscaling/HorizontalPodAutoscaler'),
  quantity('capacity', 'storage.k8s.io/CSIStorageCapacity'),
  quantity('maximumVolumeSize', 'storage.k8s.io/CSIStorageCapacity'),
  // Dynamic resource allocation.
  quantity('capacity.requests.*', 'resource.k8s.io/ResourceClaim,ResourceClaimTemplate'),
  quantity('consumedCapacity.*', 'resource.k8s.io/ResourceClaim'),
  quantity('devices.capacity.*.value', RESOURCE_SLICE),
  quantity('requestPolicy.default', RESOURCE_SLICE),
  quantity('requestPolicy.validValues', RESOURCE_SLICE),
  quantity('requestPolicy.validRange.max', RESOURCE_SLICE),
  quantity('requestPolicy.validRange.min', RESOURCE_SLICE),
  quantity('requestPolicy.validRange.step', RESOURCE_SLICE),
  quantity('counters.*.value', RESOURCE_SLICE),
  quantity('nodeAllocatableResources.*.mapping.capacityMultiplier', RESOURCE_SLICE),
  quantity('nodeAllocatableResources.*.mapping.deviceMultiplier', RESOURCE_SLICE),
  quantity('nodeAllocatableResources.*.overhead.perContainer', RESOURCE_SLICE),
  quantity('nodeAllocatableResources.*.overhead.perPod', RESOURCE_SLICE),
]);

/**
 * builtInListType is how server-side apply merges the list at `path` of an object of `type`
 * when that is a built-in kind or embeds one (a Pod template in a custom resource): the keyed
 * lists (`x-kubernetes-list-type: map`) and sets of Kubernetes 1.37's OpenAPI. Undefined for
 * any other list, which is atomic: replaced whole.
 */
export function builtInListType(path: FieldPath, type: GroupKind): ListType | undefined {
  return LIST_RULES.find(path, type);
}

/**
 * isBuiltInQuantity is true when the value at `path` of an object of `type` is a
 * `resource.Quantity` in Kubernetes 1.37's OpenAPI: `resources.requests` and `limits`,
 * `spec.capacity` of a PersistentVolume, `hard` and `used` of a ResourceQuota,
 * `status.allocatable` of a Node, a LimitRange's limits, an emptyDir's `sizeLimit`, …
 */
export function isBuiltInQuantity(path: FieldPath, type: GroupKind): boolean {
  return QUANTITY_RULES.find(path, type) ?? false;
}
