import { TransportError } from '../errors.js';
import { redactUrlText } from '../redaction/redact-url.js';

/** ServerInfo is where a transport sends requests. */
export interface ServerInfo {
  /** url is the server URL, normalized (scheme added when the kubeconfig gave `host:port`). */
  url: URL;
  /** origin is `scheme://host:port`; requests must go to it. */
  origin: string;
  /**
   * basePath is the URL's path without a trailing slash (`''` for none), e.g. `/k8s/clusters/c1`
   * behind a front proxy. The transport sends paths as given; clients prepend this.
   */
  basePath: string;
}

/**
 * parseServerUrl turns a kubeconfig `server` into {@link ServerInfo} like client-go's
 * `DefaultServerURL`: an empty value means `localhost`; a value without a scheme gets `https://`
 * when `defaultTls` (a CA, a client certificate or `insecure` is configured) and `http://`
 * otherwise, and must then be a bare `host[:port]` (`host must be a URL or a host:port pair:
 * "<server>"`, with any password in it shown as `xxxxx`). Only http and https are accepted.
 */
export function parseServerUrl(server: string, defaultTls: boolean): ServerInfo {
  const host = server || 'localhost';
  let url = tryUrl(host);
  if (!url || !url.host || !/^[a-z][a-z0-9+.-]*:\/\//i.test(host)) {
    url = tryUrl(`${defaultTls ? 'https' : 'http'}://${host}`);
    if (!url || (url.pathname !== '' && url.pathname !== '/') || url.search || url.hash) {
      throw new TransportError(
        'ERR_TRANSPORT_SERVER_URL',
        `host must be a URL or a host:port pair: "${redactUrlText(host)}"`,
      );
    }
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TransportError(
      'ERR_TRANSPORT_SERVER_URL',
      `server "${redactUrlText(host)}" must be an http or https URL`,
    );
  }
  return { url, origin: url.origin, basePath: url.pathname.replace(/\/+$/, '') };
}

function tryUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}
