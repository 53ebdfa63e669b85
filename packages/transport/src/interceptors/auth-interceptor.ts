import type { Dispatcher } from 'undici';
import type { ClientCertificate, CredentialProvider } from '../auth/credential-provider.js';
import { AuthHandler } from '../handlers/auth-handler.js';
import { hasHeader } from './header-list.js';

/** AuthInterceptorOptions configure {@link authInterceptor}. */
export interface AuthInterceptorOptions {
  provider: CredentialProvider;
  /**
   * onClientCertificate receives the client certificate of the credentials a request is about to
   * be sent with, before it is dispatched, so the connection it goes out on presents it.
   */
  onClientCertificate?: ((certificate: ClientCertificate) => void) | undefined;
  /** maxBufferedUnauthorizedBytes bounds the 401 body held back while deciding on a replay. */
  maxBufferedUnauthorizedBytes?: number | undefined;
}

/**
 * authInterceptor authenticates every request that has no `Authorization` header with
 * credentials from `provider` (asked per request; the provider caches and single-flights), and
 * handles a 401 as {@link AuthHandler} describes: at most one replay per request, only for
 * replayable bodies, only when `provider.invalidate` says fresh credentials may succeed. A
 * provider failure fails the request with `credentialsError`. Requests that carry their own
 * `Authorization` pass through untouched and are never replayed.
 */
export function authInterceptor(
  options: AuthInterceptorOptions,
): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (request, handler) => {
    if (hasHeader(request.headers, 'authorization')) return dispatch(request, handler);
    new AuthHandler(dispatch, request, handler, options).start();
    return true;
  };
}
