// @k/rest/di: the dependency-injection wiring (tsyringe containers the caller passes in).
export { registerRest } from './register.js';
export type { RegisterRestOptions } from './register.js';
export {
  RATE_LIMITER,
  REST_CLIENT,
  REST_CLIENT_OPTIONS,
  REST_TRANSPORT,
  RETRY_POLICY,
  WARNING_HANDLER,
} from './tokens.js';
