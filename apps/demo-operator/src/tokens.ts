import type { Logger } from '@k/runtime';
import type { InjectionToken } from 'tsyringe';
import type { OperatorFlags } from './operator-flags.js';
import type { WebAppOperator } from './operator.js';

/** OPERATOR_FLAGS is the operator's resolved command line. */
export const OPERATOR_FLAGS: InjectionToken<OperatorFlags> = Symbol.for(
  '@k/demo-operator.OperatorFlags',
);

/** OPERATOR_LOGGER is where the operator and the runtime under it log. */
export const OPERATOR_LOGGER: InjectionToken<Logger> = Symbol.for('@k/demo-operator.Logger');

/** WEBAPP_OPERATOR is the operator: informers, controller and leader election over `CLIENTSET`. */
export const WEBAPP_OPERATOR: InjectionToken<WebAppOperator> = Symbol.for(
  '@k/demo-operator.WebAppOperator',
);
