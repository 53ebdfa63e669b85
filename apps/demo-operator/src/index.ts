// The demo operator as a library, for its tests and the `npm start` launcher.
export { WebAppOperator } from './operator.js';
export type { OperatorSettings } from './operator.js';
export { parseOperatorFlags, OPERATOR_USAGE } from './operator-flags.js';
export type { OperatorFlags } from './operator-flags.js';
export { REPORTING_CONTROLLER, registerOperator } from './register.js';
export type { RegisterOperatorOptions } from './register.js';
export { OPERATOR_FLAGS, OPERATOR_LOGGER, WEBAPP_OPERATOR } from './tokens.js';
export { TextLogger } from './text-logger.js';
export type { LogLevel } from './text-logger.js';
export { OperatorError } from './errors.js';
export type { OperatorErrorCode } from './errors.js';
export { main } from './main.js';
export * from './names.js';
export { createWebAppsClient, webAppsResource } from './generated/web-app-v1beta1.js';
export type { WebApp, WebAppList, WebAppSpec, WebAppStatus } from './generated/web-app-v1beta1.js';
