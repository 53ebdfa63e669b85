import { isNotFound, type Clientset, type KubernetesObject } from '@k/clientset';
import { AdmissionDenied, controllerOf, type AdmissionCause } from '@k/runtime';
import type { WebApp } from '../generated/web-app-v1beta1.js';

/** TakenName is an object of a kind the operator makes for a WebApp (a Deployment, a Service), found under the WebApp's name. */
export interface TakenName {
  kind: 'Deployment' | 'Service';
  object: KubernetesObject;
}

/**
 * isAWebAppsObject: a WebApp of the name controls `object` — one being deleted, whose Deployment
 * or Service the garbage collector has not removed yet (a new WebApp of the name gets its own
 * once it has). The UID cannot be compared: the WebApp being created has none yet.
 */
function isAWebAppsObject(object: KubernetesObject, name: string): boolean {
  const controller = controllerOf(object);
  return (
    controller !== undefined &&
    controller.kind === 'WebApp' &&
    controller.apiVersion.startsWith('apps.k.example/') &&
    controller.name === name
  );
}

/**
 * nameConflicts are the causes to refuse a new WebApp named `name` for: each object of `found`
 * that no WebApp of the name controls (another team's, one made by hand, one orphaned) — the
 * operator would never take it, so the WebApp could never run. The message does not say who
 * controls it (whoever may create a WebApp need not learn of another team's objects).
 */
export function nameConflicts(name: string, found: readonly TakenName[]): AdmissionCause[] {
  return found
    .filter(({ object }) => !isAWebAppsObject(object, name))
    .map(({ kind }) => ({
      field: 'metadata.name',
      reason: 'FieldValueDuplicate',
      message: `a ${kind} named ${name} already exists in the namespace and no WebApp controls it; the operator would never replace it (delete it or choose another name)`,
    }));
}

/**
 * refuseTakenName refuses (AdmissionDenied, 422 Invalid) a new WebApp whose name a Deployment or
 * a Service of its namespace already has that no WebApp controls ({@link nameConflicts}), read
 * live through `clientset` (the operator's informers hold only its own objects). No CEL rule can
 * say this: a CRD's `x-kubernetes-validations` see only the object (and its old self), a
 * ValidatingAdmissionPolicy the object, its namespace, the request and one parameter object —
 * neither can look another object up by name. A read that fails rejects (the webhook's failure
 * policy decides); the reconciler's `Conflict` still covers an object made after the check.
 */
export async function refuseTakenName(
  clientset: Clientset,
  webapp: WebApp,
  requestNamespace?: string,
): Promise<void> {
  const name = webapp.metadata?.name ?? '';
  const namespace = webapp.metadata?.namespace || requestNamespace || '';
  if (name === '' || namespace === '') return;
  const read = async (
    kind: TakenName['kind'],
    get: Promise<KubernetesObject>,
  ): Promise<TakenName[]> => {
    try {
      return [{ kind, object: await get }];
    } catch (error) {
      if (isNotFound(error)) return [];
      throw error;
    }
  };
  const found = (
    await Promise.all([
      read('Deployment', clientset.appsV1.deployments(namespace).get(name)),
      read('Service', clientset.coreV1.services(namespace).get(name)),
    ])
  ).flat();
  const causes = nameConflicts(name, found);
  if (causes.length === 0) return;
  throw new AdmissionDenied(
    `WebApp ${name} cannot be created: ${causes.map((cause) => cause.message).join('; ')}`,
    { causes },
  );
}
