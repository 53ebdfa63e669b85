import type { Deployment } from '@k/clientset/apps/v1';
import type { WebApp, WebAppStatus, WebAppStatusCondition } from '../generated/web-app-v1beta1.js';
import { findStatusCondition, setStatusCondition } from '@k/runtime';
import { conditionTime } from '@k/runtime/conditions';
import { DEFAULT_REPLICAS, selectorText } from '../names.js';

/** WebAppCondition is one of a WebApp's conditions (metav1.Condition's shape). */
type WebAppCondition = WebAppStatusCondition;

/** What the reconcile learned besides the Deployment: whether it changed nothing on purpose, failed, or found someone else's object. */
export interface StatusFacts {
  paused: boolean;
  /** failure says why writing the Deployment or the Service failed, when it did. */
  failure?: string;
  /** conflict says which object of the WebApp's name belongs to someone else (left untouched), when one does. */
  conflict?: string;
  /** deploymentConflict is set when that object is the Deployment (its message). */
  deploymentConflict?: string;
  /** registryFull says why the WebApp's registry entry could not be recorded: its namespace's is full. */
  registryFull?: string;
}

type NewCondition = Omit<WebAppCondition, 'lastTransitionTime' | 'observedGeneration'>;

function deploymentCondition(deployment: Deployment | undefined, type: string) {
  return findStatusCondition(deployment?.status?.conditions, type);
}

/** rolledOut: the Deployment controller saw the current spec and every desired Pod is updated and available. */
function rolledOut(deployment: Deployment, desired: number): boolean {
  const status = deployment.status ?? {};
  return (
    (status.observedGeneration ?? 0) >= (deployment.metadata?.generation ?? 0) &&
    (status.updatedReplicas ?? 0) >= desired &&
    (status.replicas ?? 0) === (status.updatedReplicas ?? 0) &&
    (status.availableReplicas ?? 0) >= desired
  );
}

function availableCondition(
  deployment: Deployment | undefined,
  desired: number,
  facts: StatusFacts,
): NewCondition {
  if (!deployment && facts.deploymentConflict !== undefined) {
    return {
      type: 'Available',
      status: 'False',
      reason: 'Conflict',
      message: facts.deploymentConflict,
    };
  }
  if (!deployment) {
    return {
      type: 'Available',
      status: 'False',
      reason: 'DeploymentMissing',
      message: 'the Deployment does not exist yet',
    };
  }
  const available = deploymentCondition(deployment, 'Available');
  const ready = deployment.status?.readyReplicas ?? 0;
  return available?.status === 'True'
    ? {
        type: 'Available',
        status: 'True',
        reason: 'MinimumReplicasAvailable',
        message: `${ready} of ${desired} replicas ready`,
      }
    : {
        type: 'Available',
        status: 'False',
        reason: available?.reason ?? 'DeploymentUnavailable',
        message: `${ready} of ${desired} replicas ready`,
      };
}

function progressingCondition(
  deployment: Deployment | undefined,
  desired: number,
  facts: StatusFacts,
): NewCondition {
  if (facts.paused) {
    return {
      type: 'Progressing',
      status: 'False',
      reason: 'Paused',
      message: 'spec.paused is true: the operator changes nothing',
    };
  }
  if (!deployment && facts.deploymentConflict !== undefined) {
    return {
      type: 'Progressing',
      status: 'False',
      reason: 'Conflict',
      message: facts.deploymentConflict,
    };
  }
  if (deployment && rolledOut(deployment, desired)) {
    return {
      type: 'Progressing',
      status: 'False',
      reason: 'RolloutComplete',
      message: `${desired} replicas up to date`,
    };
  }
  const updated = deployment?.status?.updatedReplicas ?? 0;
  return {
    type: 'Progressing',
    status: 'True',
    reason: 'RollingOut',
    message: `${updated} of ${desired} replicas updated`,
  };
}

function degradedCondition(deployment: Deployment | undefined, facts: StatusFacts): NewCondition {
  if (facts.conflict !== undefined) {
    const message = [facts.conflict, facts.failure].filter((part) => part !== undefined);
    return { type: 'Degraded', status: 'True', reason: 'Conflict', message: message.join('; ') };
  }
  if (facts.failure !== undefined) {
    return { type: 'Degraded', status: 'True', reason: 'ApplyFailed', message: facts.failure };
  }
  if (facts.registryFull !== undefined) {
    return {
      type: 'Degraded',
      status: 'True',
      reason: 'RegistryFull',
      message: facts.registryFull,
    };
  }
  const progressing = deploymentCondition(deployment, 'Progressing');
  if (progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded') {
    return {
      type: 'Degraded',
      status: 'True',
      reason: 'ProgressDeadlineExceeded',
      message: progressing.message ?? '',
    };
  }
  const replicaFailure = deploymentCondition(deployment, 'ReplicaFailure');
  if (replicaFailure?.status === 'True') {
    return {
      type: 'Degraded',
      status: 'True',
      reason: 'ReplicaFailure',
      message: replicaFailure.message ?? '',
    };
  }
  return { type: 'Degraded', status: 'False', reason: 'AsExpected', message: '' };
}

/** The condition types the operator owns; any other type is left to whoever wrote it. */
const CONDITION_TYPES = ['Available', 'Progressing', 'Degraded'];

/**
 * webAppStatus is the status of `webapp` given its Deployment (as last seen) and what the
 * reconcile learned: the Deployment's replica counts, the generation it describes, the Pods'
 * selector (for the scale subresource) and the conditions Available (the Deployment's
 * availability), Progressing (a rollout under way; False when complete or paused) and Degraded
 * (an object of the WebApp's name is someone else's: `Conflict`; a write failed; the
 * namespace's registry is full; the rollout exceeded its deadline; or Pods cannot be created).
 */
export function webAppStatus(
  webapp: WebApp,
  deployment: Deployment | undefined,
  facts: StatusFacts,
  now: string = conditionTime(),
): WebAppStatus {
  const desired = webapp.spec.replicas ?? DEFAULT_REPLICAS;
  const generation = webapp.metadata?.generation ?? 0;
  // metav1.Condition's rule (setStatusCondition): lastTransitionTime changes only when the
  // status does; reason, message and observedGeneration follow the latest observation.
  const conditions = (webapp.status?.conditions ?? []).filter((condition) =>
    CONDITION_TYPES.includes(condition.type),
  );
  for (const condition of [
    availableCondition(deployment, desired, facts),
    progressingCondition(deployment, desired, facts),
    degradedCondition(deployment, facts),
  ]) {
    setStatusCondition(conditions, {
      ...condition,
      observedGeneration: generation,
      lastTransitionTime: now,
    });
  }
  return {
    replicas: deployment?.status?.replicas ?? 0,
    readyReplicas: deployment?.status?.readyReplicas ?? 0,
    observedGeneration: generation,
    selector: selectorText(webapp),
    conditions,
  };
}

/** sameStatus is true when writing `next` would change nothing (conditions compared by type). */
export function sameStatus(current: WebAppStatus | undefined, next: WebAppStatus): boolean {
  if (!current) return false;
  const scalar = (['replicas', 'readyReplicas', 'observedGeneration', 'selector'] as const).every(
    (field) => current[field] === next[field],
  );
  if (!scalar) return false;
  const before = current.conditions ?? [];
  if (before.length !== (next.conditions ?? []).length) return false;
  return (next.conditions ?? []).every((condition) => {
    const existing = findStatusCondition(before, condition.type);
    return (
      existing !== undefined &&
      existing.status === condition.status &&
      existing.reason === condition.reason &&
      existing.message === condition.message &&
      existing.observedGeneration === condition.observedGeneration &&
      existing.lastTransitionTime === condition.lastTransitionTime
    );
  });
}
