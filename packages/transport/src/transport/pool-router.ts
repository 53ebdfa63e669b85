import type { Dispatcher } from 'undici';
import { Dispatcher as BaseDispatcher } from './undici-parts.js';
import type { ClientCertificate } from '../auth/credential-provider.js';
import type { ConnectionPools, PoolIdentity, PoolLease } from './connection-pools.js';

/**
 * PoolRouter is the bottom of a transport's stack: it sends each request on the shared pool of
 * the transport's TLS identity. When the credential provider hands out a client certificate
 * (exec), {@link useClientCertificate} moves new requests to the pool of that certificate and
 * releases the previous certificate's pool (its requests in flight finish, its idle connections
 * close when no other transport holds it), so a renewed certificate is used by new connections
 * without a restart.
 *
 * Concurrency: called synchronously per request on one event loop.
 */
export class PoolRouter extends BaseDispatcher {
  readonly #pools: ConnectionPools;
  readonly #identity: PoolIdentity;
  readonly #base: PoolLease;
  #certificateLease: PoolLease | undefined;
  #certificate: ClientCertificate | undefined;
  #closed = false;

  constructor(pools: ConnectionPools, identity: PoolIdentity) {
    super();
    this.#pools = pools;
    this.#identity = identity;
    this.#base = pools.acquire(identity);
  }

  /** poolKey is the key of the pool new requests go to (tests and diagnostics). */
  get poolKey(): string {
    return (this.#certificateLease ?? this.#base).key;
  }

  /**
   * useClientCertificate routes requests from now on to the pool presenting `certificate`. A
   * static client certificate in the kubeconfig takes precedence (client-go), so then it is
   * ignored. The same certificate (by content) again is a no-op.
   */
  useClientCertificate(certificate: ClientCertificate): void {
    if (this.#closed) return;
    const tls = this.#identity.tls;
    if (tls.clientCertificate || tls.clientCertificateFiles) return;
    const current = this.#certificate;
    if (
      current === certificate ||
      (current &&
        current.certificate === certificate.certificate &&
        current.key === certificate.key)
    ) {
      return;
    }
    const previous = this.#certificateLease;
    this.#certificate = certificate;
    this.#certificateLease = this.#pools.acquire({
      ...this.#identity,
      providerCertificate: certificate,
    });
    void previous?.release();
  }

  override dispatch(
    options: Dispatcher.DispatchOptions,
    handler: Dispatcher.DispatchHandler,
  ): boolean {
    return (this.#certificateLease ?? this.#base).pool.dispatch(options, handler);
  }

  /** close releases this router's pool references (the last holder closes a pool). */
  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    this.#closed = true;
    const done = Promise.all([this.#base.release(), this.#certificateLease?.release()]).then(
      () => undefined,
    );
    if (callback) {
      void done.then(callback);
      return;
    }
    return done;
  }

  override destroy(): Promise<void>;
  override destroy(error: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(error: Error | null, callback: () => void): void;
  override destroy(first?: Error | null | (() => void), second?: () => void): Promise<void> | void {
    const callback = typeof first === 'function' ? first : second;
    if (callback) {
      this.close(callback);
      return;
    }
    return this.close();
  }
}
