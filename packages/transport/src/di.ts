// @k/transport/di: the dependency-injection wiring (tsyringe containers the caller passes in).
export { registerTransport } from './register.js';
export type { RegisterTransportOptions } from './register.js';
export {
  CREDENTIAL_PROVIDER_FACTORY,
  RESOLVED_CONFIG,
  TRANSPORT,
  TRANSPORT_INTERCEPTOR,
} from './tokens.js';
