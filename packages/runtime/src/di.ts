// @k/runtime/di: the dependency-injection wiring (tsyringe containers the caller passes in).
export { registerRuntime } from './register.js';
export type { RegisterRuntimeOptions } from './register.js';
export {
  CONTROLLER_SETUP,
  EVENT_RECORDER,
  INFORMER_FACTORY,
  LEASE_CLIENT,
  MANAGER,
  METRICS_SINK,
  RATE_LIMITER_FACTORY,
  RUNTIME_LOGGER,
} from './tokens.js';
