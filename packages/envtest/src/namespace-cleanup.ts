import {
  DiscoveryClient,
  type Clientset,
  type ResourceDescriptor,
  type UnstructuredObject,
} from '@k/clientset';
import type { Namespace } from '@k/clientset/core/v1';
import { ApiError, isConflict, isNotFound } from '@k/rest';

/** REPORT_LIMIT bounds how many remaining objects a stuck report names. */
const REPORT_LIMIT = 20;
/** LIST_LIMIT bounds each list of a namespace's objects (enough to say whether it is empty). */
const LIST_LIMIT = 100;

/** RemainingObject is an object still in a namespace being deleted. */
export interface RemainingObject {
  /** resource: `<plural>` for the core group, else `<plural>.<group>`. */
  readonly resource: string;
  readonly name: string;
  readonly deletionTimestamp: string | undefined;
  readonly finalizers: readonly string[];
}

/**
 * namespacedResources lists, through a fresh discovery (CRDs installed since the clientset's
 * cache was filled count too), every namespaced resource that can be listed and deleted: one
 * version per group and resource, the group's preferred version first, as the namespace
 * controller's `ServerPreferredNamespacedResources` does. Group versions whose discovery failed
 * (an aggregated API that is down) are left out.
 */
export async function namespacedResources(clientset: Clientset): Promise<ResourceDescriptor[]> {
  const discovery = await new DiscoveryClient(clientset.rest).serverResources();
  const byGroupVersion = new Map<string, ResourceDescriptor[]>();
  for (const resource of discovery.resources) {
    const key = `${resource.group}/${resource.version}`;
    byGroupVersion.set(key, [...(byGroupVersion.get(key) ?? []), resource]);
  }
  const seen = new Set<string>();
  const resources: ResourceDescriptor[] = [];
  for (const group of discovery.groups) {
    const versions = [
      group.preferredVersion,
      ...group.versions.filter((version) => version !== group.preferredVersion),
    ];
    for (const version of versions) {
      for (const resource of byGroupVersion.get(`${group.name}/${version}`) ?? []) {
        const key = `${resource.plural}.${resource.group}`;
        if (seen.has(key) || !resource.namespaced || resource.plural.includes('/')) continue;
        const verbs = resource.verbs ?? [];
        if (!verbs.includes('list') || !verbs.includes('delete')) continue;
        seen.add(key);
        resources.push(resource);
      }
    }
  }
  return resources;
}

/** resourceName is how a stuck report names a resource: `configmaps`, `widgets.example.com`. */
export function resourceName(resource: {
  readonly group: string;
  readonly plural: string;
}): string {
  return resource.group === '' ? resource.plural : `${resource.plural}.${resource.group}`;
}

/** Remaining is what {@link listRemaining} found. */
export interface Remaining {
  readonly objects: ReadonlyMap<ResourceDescriptor, readonly RemainingObject[]>;
  /** complete is false when a list failed for another reason than the resource being gone. */
  readonly complete: boolean;
}

/**
 * listRemaining lists what is left of `namespace` in `resources` (at most {@link LIST_LIMIT} per
 * resource). A resource that is gone meanwhile (404, 405) counts as empty; any other failure makes
 * the answer incomplete, so nobody finalizes a namespace that may still hold objects.
 */
export async function listRemaining(
  clientset: Clientset,
  namespace: string,
  resources: readonly ResourceDescriptor[],
): Promise<Remaining> {
  const objects = new Map<ResourceDescriptor, RemainingObject[]>();
  let complete = true;
  await Promise.all(
    resources.map(async (resource) => {
      let items: UnstructuredObject[];
      try {
        items = (
          await clientset.dynamic.resource(gvr(resource), namespace).list({ limit: LIST_LIMIT })
        ).items;
      } catch (error) {
        if (!isGone(error)) complete = false;
        return;
      }
      if (items.length === 0) return;
      objects.set(
        resource,
        items.map((item) => ({
          resource: resourceName(resource),
          name: String(item.metadata?.name ?? ''),
          deletionTimestamp: item.metadata?.deletionTimestamp,
          finalizers: item.metadata?.finalizers ?? [],
        })),
      );
    }),
  );
  return { objects, complete };
}

/** isGone: the resource or object no longer exists (404), or the verb is not served (405). */
function isGone(error: unknown): boolean {
  return isNotFound(error) || (ApiError.isInstance(error) && error.statusCode === 405);
}

/**
 * deleteRemaining deletes what `listRemaining` found that is not being deleted yet: one
 * `deletecollection` per resource that serves it, else one delete per object (the namespace
 * controller's order of preference). Objects already gone are fine.
 */
export async function deleteRemaining(
  clientset: Clientset,
  namespace: string,
  remaining: ReadonlyMap<ResourceDescriptor, readonly RemainingObject[]>,
): Promise<void> {
  await Promise.all(
    [...remaining].map(async ([resource, objects]) => {
      const live = objects.filter((object) => object.deletionTimestamp === undefined);
      if (live.length === 0) return;
      const client = clientset.dynamic.resource(gvr(resource), namespace);
      const ignoreGone = (error: unknown) => {
        if (!isGone(error)) throw error;
      };
      // Background, as the namespace controller deletes: dependents go too, whatever the
      // resource's default (core ReplicationControllers orphan theirs).
      const background = { propagationPolicy: 'Background' } as const;
      if (resource.verbs?.includes('deletecollection')) {
        await client.deleteCollection(background).catch(ignoreGone);
      } else {
        await Promise.all(
          live.map((object) => client.delete(object.name, background).catch(ignoreGone)),
        );
      }
    }),
  );
}

/**
 * finalizeNamespace removes the `kubernetes` finalizer from a Terminating namespace
 * (`PUT /api/v1/namespaces/<name>/finalize` with no `spec.finalizers`), the namespace
 * controller's last step once the namespace is empty. A namespace already gone, or changed
 * meanwhile (409: kube-controller-manager finalized it first), is fine.
 */
export async function finalizeNamespace(clientset: Clientset, namespace: string): Promise<void> {
  let current: Namespace;
  try {
    current = await clientset.coreV1.namespaces().get(namespace);
  } catch (error) {
    if (isNotFound(error)) return;
    throw error;
  }
  try {
    await clientset.rest
      .put()
      .resource('namespaces')
      .name(namespace)
      .subresource('finalize')
      .body({ ...current, spec: { ...current.spec, finalizers: [] } })
      .execute();
  } catch (error) {
    // Gone, or finalized by kube-controller-manager meanwhile (the next round sees which).
    if (!isNotFound(error) && !isConflict(error)) throw error;
  }
}

/**
 * stuckReport says why `namespace` is still there: each remaining object as
 * `<resource>.<group>/<name>` with its deletionTimestamp and finalizers (at most
 * {@link REPORT_LIMIT}), the namespace's NamespaceContentRemaining and
 * NamespaceFinalizersRemaining conditions, its own finalizers, and which controllers to suspect.
 */
export function stuckReport(options: {
  readonly namespace: string;
  readonly timeoutMs: number;
  readonly object: Namespace | undefined;
  readonly remaining: readonly RemainingObject[];
  readonly controllerManager: boolean;
}): string {
  const { namespace, remaining } = options;
  const lines = [
    `namespace ${namespace} was still there after ${options.timeoutMs} ms of waiting for its deletion`,
  ];
  if (remaining.length > 0) {
    lines.push(
      `objects left in it (${remaining.length}${remaining.length >= LIST_LIMIT ? '+' : ''}):`,
    );
    for (const object of remaining.slice(0, REPORT_LIMIT)) {
      const deletion = object.deletionTimestamp
        ? `deletionTimestamp ${object.deletionTimestamp}`
        : 'no deletionTimestamp';
      const finalizers = object.finalizers.length
        ? `finalizers ${object.finalizers.join(', ')}`
        : 'no finalizers';
      lines.push(`  ${object.resource}/${object.name} (${deletion}; ${finalizers})`);
    }
    if (remaining.length > REPORT_LIMIT) {
      lines.push(`  … and ${remaining.length - REPORT_LIMIT} more`);
    }
  } else {
    lines.push('no objects are left in it');
  }
  const conditions = (options.object?.status?.conditions ?? []).filter(
    (condition) =>
      condition.type === 'NamespaceContentRemaining' ||
      condition.type === 'NamespaceFinalizersRemaining',
  );
  if (conditions.length > 0) {
    lines.push('namespace conditions:');
    for (const condition of conditions) {
      lines.push(
        `  ${condition.type}=${condition.status}${condition.reason ? ` (${condition.reason})` : ''}${condition.message ? `: ${condition.message}` : ''}`,
      );
    }
  } else if (!options.controllerManager) {
    lines.push(
      'no namespace conditions: kube-controller-manager does not run here, so envtest emptied the namespace itself',
    );
  }
  const namespaceFinalizers = [
    ...(options.object?.metadata?.finalizers ?? []),
    ...(options.object?.spec?.finalizers ?? []),
  ];
  if (namespaceFinalizers.length > 0) {
    lines.push(`the namespace's own finalizers: ${namespaceFinalizers.join(', ')}`);
  }
  const finalizers = [...new Set(remaining.flatMap((object) => object.finalizers))];
  if (finalizers.length > 0) {
    lines.push(
      `is the controller that owns ${finalizers.length === 1 ? 'finalizer' : 'finalizers'} ${finalizers.join(', ')} still running? (stop it after the namespace is deleted, or remove the finalizers)`,
    );
  }
  return lines.join('\n');
}

function gvr(resource: ResourceDescriptor) {
  return { group: resource.group, version: resource.version, resource: resource.plural };
}
