import type { Pool } from 'undici';
import { Pool as UndiciPool } from './undici-parts.js';
import type { ClientCertificate } from '../auth/credential-provider.js';
import { fingerprint } from '../tls/pem.js';
import type { TlsOptions } from '../tls/load-tls-options.js';
import { ServerConnector } from '../tls/server-connector.js';

/**
 * DEFAULT_KEEP_ALIVE_TIMEOUT_MS is how long an idle connection is kept: 60 s, under the API
 * server's 90 s idle timeout (client-go also uses 90 s, but Go retries a request that meets a
 * connection the server just closed and undici does not, so the client closes first).
 */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 60_000;

/**
 * PoolSettings tune a pool's connections; they are part of its identity. Pools never time out a
 * response body (undici's default would cut a quiet watch or `logs --follow` after 300 s, as
 * Go's transport never does): a stream's idle check and a buffered request's own timeout
 * (@k/rest) bound them instead. The wait for response headers keeps undici's 300 s default.
 */
export interface PoolSettings {
  /** keepAliveTimeoutMs is the idle time after which a connection is closed. */
  keepAliveTimeoutMs?: number | undefined;
  /** maxConnections caps the pool's concurrent connections; default unlimited (as Go). */
  maxConnections?: number | undefined;
  /** connectTimeoutMs bounds connecting, tunnelling and the TLS handshake. */
  connectTimeoutMs?: number | undefined;
}

/**
 * PoolIdentity is what makes two transports share connections: the server origin, the TLS
 * identity (CA, client certificate or its files, server name, insecure), the client certificate
 * a credential provider hands out, the proxy, compression and the pool settings. Tokens, basic
 * credentials, impersonation and user agent are per-request headers and are not part of it
 * (client-go's `tlsCacheKey`).
 */
export interface PoolIdentity {
  origin: string;
  tls: TlsOptions;
  providerCertificate?: ClientCertificate | undefined;
  proxy?: URL | undefined;
  disableCompression: boolean;
  settings: PoolSettings;
}

/** poolKey renders a {@link PoolIdentity} as a string key that holds no secret in clear. */
function poolKey(identity: PoolIdentity): string {
  const certificate = identity.providerCertificate;
  return JSON.stringify([
    identity.origin,
    identity.tls.identity,
    certificate ? fingerprint(certificate.certificate, certificate.key) : '',
    identity.proxy ? fingerprint(identity.proxy.href) : '',
    identity.disableCompression,
    identity.settings.keepAliveTimeoutMs ?? null,
    identity.settings.maxConnections ?? null,
    identity.settings.connectTimeoutMs ?? null,
  ]);
}

/** PoolLease is one holder's reference to a shared pool; `release` is idempotent. */
export interface PoolLease {
  readonly key: string;
  readonly pool: Pool;
  release(): Promise<void>;
}

interface Entry {
  pool: Pool;
  references: number;
}

/**
 * ConnectionPools caches undici connection pools by {@link poolKey}, with reference counting:
 * `acquire` returns the pool for an identity (creating it, with its {@link ServerConnector}, on
 * first use) and counts the holder; when the last holder releases, the entry is removed and the
 * pool closed gracefully (requests in flight finish, idle connections close). Keep-alive
 * connections of one pool are shared by every holder. {@link sharedConnectionPools} is the
 * process-wide instance transports use by default.
 *
 * Concurrency: synchronous bookkeeping on one event loop; safe for any number of transports.
 */
export class ConnectionPools {
  readonly #entries = new Map<string, Entry>();

  /** size is the number of live pools (for tests and diagnostics). */
  get size(): number {
    return this.#entries.size;
  }

  acquire(identity: PoolIdentity): PoolLease {
    const key = poolKey(identity);
    let entry = this.#entries.get(key);
    if (!entry) {
      const connector = new ServerConnector({
        tls: identity.tls,
        ...(identity.providerCertificate
          ? { providerCertificate: identity.providerCertificate }
          : {}),
        ...(identity.proxy ? { proxy: identity.proxy } : {}),
        ...(identity.settings.connectTimeoutMs !== undefined
          ? { connectTimeoutMs: identity.settings.connectTimeoutMs }
          : {}),
      });
      const keepAliveTimeout =
        identity.settings.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS;
      entry = {
        pool: new UndiciPool(identity.origin, {
          connect: connector.connect,
          keepAliveTimeout,
          keepAliveMaxTimeout: Math.max(keepAliveTimeout, 600_000),
          bodyTimeout: 0,
          connections: identity.settings.maxConnections ?? null,
          // HTTP/1.1 only (ADR 0012), as the connector offers.
          allowH2: false,
        }),
        references: 0,
      };
      this.#entries.set(key, entry);
    }
    entry.references += 1;
    const held = entry;
    let released = false;
    return {
      key,
      pool: held.pool,
      release: async () => {
        if (released) return;
        released = true;
        held.references -= 1;
        if (held.references > 0) return;
        if (this.#entries.get(key) === held) this.#entries.delete(key);
        await held.pool.close();
      },
    };
  }
}

/** sharedConnectionPools is the process-wide pool cache every transport uses by default. */
export const sharedConnectionPools = new ConnectionPools();
