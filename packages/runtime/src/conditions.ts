// @k/runtime/conditions: metav1.Condition semantics (apimachinery's meta.SetStatusCondition and friends).
export {
  conditionTime,
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
} from './conditions/status-conditions.js';
export type {
  ConditionLike,
  ConditionUpdate,
  StatusCondition,
} from './conditions/status-conditions.js';
