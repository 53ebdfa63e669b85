// @k/transport/connection: what a transport connects with: connection pools per TLS identity,
// TLS material, proxies and the server URL.
export {
  ConnectionPools,
  sharedConnectionPools,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
} from './transport/connection-pools.js';
export type { PoolIdentity, PoolLease, PoolSettings } from './transport/connection-pools.js';
export { parseServerUrl } from './transport/server-url.js';
export { loadTlsOptions } from './tls/load-tls-options.js';
export type { TlsOptions } from './tls/load-tls-options.js';
export { ClientCertificateFiles } from './tls/client-certificate-files.js';
export { ServerConnector } from './tls/server-connector.js';
export { NoProxy, proxyForServer, parseProxyUrl } from './proxy/proxy-for-server.js';
