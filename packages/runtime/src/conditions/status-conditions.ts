/**
 * StatusCondition is the shape of `metav1.Condition` that the helpers need: `@k/clientset`'s
 * `Condition` and the condition types generated for custom resources both fit.
 */
export interface StatusCondition {
  type: string;
  status: string;
  reason: string;
  message: string;
  /** lastTransitionTime is an RFC 3339 time (`2026-01-01T00:00:00Z`). */
  lastTransitionTime: string;
  observedGeneration?: number | undefined;
}

/**
 * ConditionUpdate is a condition as a reconcile observed it: without `lastTransitionTime`, the
 * transition time is now; with it, that time is used when the status changes.
 */
export type ConditionUpdate<C extends StatusCondition> = Omit<C, 'lastTransitionTime'> & {
  lastTransitionTime?: string | undefined;
};

/** conditionTime formats `date` as metav1.Time serializes it: RFC 3339 in UTC, whole seconds. */
export function conditionTime(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}

/**
 * setStatusCondition sets `update` in `conditions` (apimachinery's `meta.SetStatusCondition`):
 * a condition of a new type is appended; for an existing type, `lastTransitionTime` changes only
 * when the status does, and reason, message and observedGeneration follow `update`. Returns
 * true when anything changed.
 *
 * It changes the array, never the condition objects in it (a changed one is replaced), so a copy
 * of a cached object's array is enough: `const conditions = [...(cached.status?.conditions ?? [])]`.
 */
export function setStatusCondition<C extends StatusCondition>(
  conditions: C[],
  update: ConditionUpdate<C>,
): boolean {
  const index = conditions.findIndex((condition) => condition.type === update.type);
  const transitionTime = update.lastTransitionTime || conditionTime();
  if (index < 0) {
    conditions.push({ ...update, lastTransitionTime: transitionTime } as C);
    return true;
  }
  const existing = conditions[index]!;
  const statusChanged = existing.status !== update.status;
  if (
    !statusChanged &&
    existing.reason === update.reason &&
    existing.message === update.message &&
    existing.observedGeneration === update.observedGeneration
  ) {
    return false;
  }
  const next = {
    ...existing,
    status: update.status,
    reason: update.reason,
    message: update.message,
    lastTransitionTime: statusChanged ? transitionTime : existing.lastTransitionTime,
  };
  if (update.observedGeneration === undefined) delete next.observedGeneration;
  else next.observedGeneration = update.observedGeneration;
  conditions[index] = next;
  return true;
}

/** removeStatusCondition removes the condition of `type` from `conditions`; true when there was one. */
export function removeStatusCondition(conditions: ConditionLike[], type: string): boolean {
  const index = conditions.findIndex((condition) => condition.type === type);
  if (index < 0) return false;
  // Types are unique in a valid list; a list someone else wrote may repeat one: remove them all.
  for (let at = conditions.length - 1; at >= index; at -= 1) {
    if (conditions[at]!.type === type) conditions.splice(at, 1);
  }
  return true;
}

/**
 * ConditionLike is what finding a condition needs, so the finders also read the conditions of
 * built-in kinds (a Deployment's, a Pod's), whose reason and times are optional.
 */
export interface ConditionLike {
  type?: string | undefined;
  status?: string | undefined;
}

/** findStatusCondition returns the condition of `type`, or undefined. */
export function findStatusCondition<C extends ConditionLike>(
  conditions: readonly C[] | undefined,
  type: string,
): C | undefined {
  return conditions?.find((condition) => condition.type === type);
}

/** isStatusConditionPresentAndEqual is true when the condition of `type` exists with `status`. */
export function isStatusConditionPresentAndEqual(
  conditions: readonly ConditionLike[] | undefined,
  type: string,
  status: string,
): boolean {
  return findStatusCondition(conditions, type)?.status === status;
}

/** isStatusConditionTrue is true when the condition of `type` exists with status `True`. */
export function isStatusConditionTrue(
  conditions: readonly ConditionLike[] | undefined,
  type: string,
): boolean {
  return isStatusConditionPresentAndEqual(conditions, type, 'True');
}

/** isStatusConditionFalse is true when the condition of `type` exists with status `False`. */
export function isStatusConditionFalse(
  conditions: readonly ConditionLike[] | undefined,
  type: string,
): boolean {
  return isStatusConditionPresentAndEqual(conditions, type, 'False');
}
