// @k/clientset/di: the dependency-injection wiring (tsyringe containers the caller passes in).
export { registerClientset } from './register.js';
export type { RegisterClientsetOptions } from './register.js';
export {
  CLIENTSET,
  DISCOVERY_CACHE,
  DISCOVERY_CLIENT,
  DYNAMIC_CLIENT,
  REST_MAPPER,
} from './tokens.js';
// The plugin doors of the layer below, so a clientset user registers plugins without @k/transport.
export { CREDENTIAL_PROVIDER_FACTORY, TRANSPORT_INTERCEPTOR } from '@k/transport/di';
