import type { Dispatcher } from 'undici';
import { GzipDecodingHandler } from '../handlers/gzip-decoding-handler.js';
import { hasHeader, withHeaders } from './header-list.js';

const ACCEPT_GZIP = ['accept-encoding', 'gzip'];

/**
 * compressionInterceptor asks for gzip (`Accept-Encoding: gzip`) on requests that do not choose
 * an encoding themselves and decodes gzip responses to them with {@link GzipDecodingHandler}. A
 * request that sets its own `Accept-Encoding` gets the raw body (Go's transport rule: it only
 * decodes what it asked for). Stateless per request.
 */
export function compressionInterceptor(): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (options, handler) => {
    if (hasHeader(options.headers, 'accept-encoding')) return dispatch(options, handler);
    return dispatch(
      { ...options, headers: withHeaders(options.headers, ACCEPT_GZIP) },
      new GzipDecodingHandler(handler),
    );
  };
}
