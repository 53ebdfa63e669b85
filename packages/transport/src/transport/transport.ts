import type { Dispatcher } from 'undici';
import { Dispatcher as BaseDispatcher, Dispatcher1Wrapper } from './undici-parts.js';
import type { CredentialProvider } from '../auth/credential-provider.js';
import { TransportError } from '../errors.js';
import type { ApiServerDispatcher } from './api-server-dispatcher.js';
import type { TransportStackEntry } from './resolve-transport-stack.js';
import type { ServerInfo } from './server-url.js';

/** TransportParts are what {@link createTransport} assembles into a {@link Transport}. */
export interface TransportParts {
  server: ServerInfo;
  /** defaultNamespace is the context's namespace (`default` when it names none). */
  defaultNamespace: string;
  /** dispatch is the composed interceptor stack over the pool router. */
  dispatch: Dispatcher.Dispatch;
  /** release gives back the transport's pool references. */
  release: () => Promise<void>;
  credentialProvider: CredentialProvider | undefined;
  /** stack describes the layers of `dispatch`, outermost first. */
  stack: readonly TransportStackEntry[];
}

const REJECTED_CONTROLLER: Dispatcher.DispatchController = {
  aborted: true,
  paused: false,
  reason: null,
  abort() {},
  pause() {},
  resume() {},
};

/**
 * Transport is an undici Dispatcher bound to one API server and one user: use it as
 * `dispatcher` with undici's `request`/`fetch`, or call `transport.request(...)`. Every request
 * goes through the interceptor stack `createTransport` built (impersonation, user agent, auth,
 * compression) onto connection pools shared process-wide by every transport with the same TLS
 * identity. Requests must target {@link server}'s origin (a request without an origin gets it);
 * any other origin fails with `ERR_TRANSPORT_ORIGIN`, so credentials never leave for another host.
 *
 * It is an {@link ApiServerDispatcher}: it carries its server and the context's default
 * namespace for the clients above it.
 *
 * Ownership: the transport owns its credential provider; {@link close} closes the provider and
 * releases the pools (the last transport of a pool closes it after its requests finish).
 * Concurrency: any number of concurrent requests.
 */
export class Transport extends BaseDispatcher implements ApiServerDispatcher {
  /** server is the API server this transport talks to. */
  readonly server: ServerInfo;
  /** defaultNamespace is the context's namespace (`default` when it names none). */
  readonly defaultNamespace: string;
  /** credentialProvider is the provider selected for the user, if it needs one. */
  readonly credentialProvider: CredentialProvider | undefined;
  /**
   * stack is the resolved interceptor stack, outermost first: built-in layers and user
   * interceptors by name, ending with `pool` (print it with `describeTransportStack`).
   */
  readonly stack: readonly TransportStackEntry[];
  readonly #dispatch: Dispatcher.Dispatch;
  readonly #release: () => Promise<void>;
  #closing: Promise<void> | undefined;

  constructor(parts: TransportParts) {
    super();
    this.server = parts.server;
    this.defaultNamespace = parts.defaultNamespace;
    this.credentialProvider = parts.credentialProvider;
    this.stack = parts.stack;
    this.#dispatch = parts.dispatch;
    this.#release = parts.release;
  }

  /** closed is true once {@link close} (or destroy) was called. */
  get closed(): boolean {
    return this.#closing !== undefined;
  }

  override dispatch(
    options: Dispatcher.DispatchOptions,
    given: Dispatcher.DispatchHandler,
  ): boolean {
    // Node 22's and 24's fetch (undici 6 and 7), and a program's own undici 7, dispatch handlers
    // of the older shape (onConnect, onHeaders, onError), which undici 8's pools do not call.
    const handler = Dispatcher1Wrapper.wrapHandler(given);
    const origin =
      options.origin === undefined || options.origin === this.server.origin
        ? options.origin
        : new URL(String(options.origin)).origin;
    let error: TransportError | undefined;
    if (this.#closing) {
      error = new TransportError(
        'ERR_TRANSPORT_CLOSED',
        `the transport for ${this.server.origin} is closed`,
      );
    } else if (origin !== undefined && origin !== this.server.origin) {
      error = new TransportError(
        'ERR_TRANSPORT_ORIGIN',
        `request origin ${origin} is not the transport's server ${this.server.origin}`,
      );
    }
    if (error) {
      const failure = error;
      queueMicrotask(() => handler.onResponseError?.(REJECTED_CONTROLLER, failure));
      return false;
    }
    return this.#dispatch(
      origin === undefined ? { ...options, origin: this.server.origin } : options,
      handler,
    );
  }

  /**
   * close stops new requests, lets requests in flight finish, releases the pools and closes the
   * credential provider. Idempotent.
   */
  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    this.#closing ??= (async () => {
      try {
        await this.#release();
      } finally {
        await this.credentialProvider?.close?.();
      }
    })();
    if (callback) {
      void this.#closing.then(callback, callback);
      return;
    }
    return this.#closing;
  }

  /** destroy is {@link close}: pools are shared, so one transport never aborts another's requests. */
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
