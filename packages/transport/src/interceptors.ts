// @k/transport/interceptors: the built-in interceptors (undici `dispatch => dispatch` factories),
// for stacks built by hand; `createTransport` composes them by itself.
export { authInterceptor } from './interceptors/auth-interceptor.js';
export type { AuthInterceptorOptions } from './interceptors/auth-interceptor.js';
export { impersonationInterceptor } from './interceptors/impersonation-interceptor.js';
export { impersonationHeaders } from './interceptors/impersonation-headers.js';
export { userAgentInterceptor } from './interceptors/user-agent-interceptor.js';
export { defaultUserAgent } from './interceptors/default-user-agent.js';
export type { UserAgentOptions } from './interceptors/default-user-agent.js';
export { compressionInterceptor } from './interceptors/compression-interceptor.js';
