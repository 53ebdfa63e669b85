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
// For DI wiring above @k/rest: the OIDC write-back `createRestClient` applies by itself.
export { withKubeconfigPersister } from './client/create-rest-client.js';
