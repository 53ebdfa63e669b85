import type { Impersonation } from '@k/config';
import type { Dispatcher } from 'undici';
import { hasHeader, withHeaders } from './header-list.js';
import { impersonationHeaders } from './impersonation-headers.js';

/**
 * impersonationInterceptor adds the {@link impersonationHeaders} of `impersonation` to every
 * request that does not already carry `Impersonate-User` (a request that impersonates on its own
 * keeps its headers). Stateless: safe for any number of concurrent requests.
 */
export function impersonationInterceptor(
  impersonation: Impersonation,
): Dispatcher.DispatcherComposeInterceptor {
  const headers = impersonationHeaders(impersonation);
  return (dispatch) => {
    if (headers.length === 0) return dispatch;
    return (options, handler) => {
      if (hasHeader(options.headers, 'impersonate-user')) return dispatch(options, handler);
      return dispatch({ ...options, headers: withHeaders(options.headers, headers) }, handler);
    };
  };
}
