import type { Dispatcher } from 'undici';
import { hasHeader, withHeaders } from './header-list.js';

/**
 * userAgentInterceptor sets `User-Agent: <userAgent>` on requests that have none; a request's
 * own user agent is kept (client-go's rule). Stateless: safe for concurrent requests.
 */
export function userAgentInterceptor(userAgent: string): Dispatcher.DispatcherComposeInterceptor {
  const header = ['user-agent', userAgent];
  return (dispatch) => (options, handler) => {
    if (hasHeader(options.headers, 'user-agent')) return dispatch(options, handler);
    return dispatch({ ...options, headers: withHeaders(options.headers, header) }, handler);
  };
}
