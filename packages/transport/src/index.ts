// @k/transport: an authenticated, pooled undici dispatcher for one API server. Secondary surfaces
// have their own subpaths: `@k/transport/auth` (the built-in token and basic plugins and plugin
// selection), `@k/transport/exec` and `@k/transport/oidc` (those plugins' pieces),
// `@k/transport/interceptors` (the built-in interceptors, for custom stacks),
// `@k/transport/connection` (pools, TLS, proxies) and `@k/transport/di` (the DI wiring).

// The transport.
export { createTransport } from './transport/create-transport.js';
export type { TransportOptions } from './transport/create-transport.js';
export { Transport } from './transport/transport.js';
export { apiServerDispatcher } from './transport/api-server-dispatcher.js';
export type {
  ApiServerDispatcher,
  ApiServerDispatcherOptions,
} from './transport/api-server-dispatcher.js';
export type { ServerInfo } from './transport/server-url.js';

// Errors.
export { TransportError, ExecPluginError, OidcError } from './errors.js';
export type {
  ExecPluginErrorCode,
  KTransportErrorCode,
  OidcErrorCode,
  TransportErrorCode,
} from './errors.js';

// Auth plugins: the contract a custom credential provider implements.
export type {
  ClientCertificate,
  CredentialProvider,
  CredentialProviderContext,
  CredentialProviderFactory,
  CredentialRequest,
  Credentials,
} from './auth/credential-provider.js';

// User interceptors at named positions of the transport stack; their DI token,
// TRANSPORT_INTERCEPTOR, is in @k/transport/di.
export {
  TRANSPORT_INTERCEPTOR_POSITIONS,
  TRANSPORT_INTERCEPTOR_PRIORITIES,
  TRANSPORT_BUILTIN_INTERCEPTOR_NAMES,
} from './transport/transport-interceptor.js';
export type {
  TransportInterceptor,
  TransportInterceptorPosition,
  TransportInterceptorPriority,
  TransportBuiltinInterceptorName,
} from './transport/transport-interceptor.js';
export type { TransportStackEntry } from './transport/resolve-transport-stack.js';
export { describeTransportStack } from './transport/describe-transport-stack.js';

// A signal that any of several signals or a deadline aborts, with its timer and listeners disposed.
export { linkSignals } from './signals/link-signals.js';
export type { LinkedSignal, LinkedSignalOptions, SignalClock } from './signals/link-signals.js';
