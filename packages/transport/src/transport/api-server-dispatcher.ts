import type { Dispatcher } from 'undici';
import { Dispatcher as BaseDispatcher } from './undici-parts.js';
import { expectOptions, expectString } from '../checks/argument-checks.js';
import { TransportError } from '../errors.js';
import { parseServerUrl, type ServerInfo } from './server-url.js';

/**
 * ApiServerDispatcher is what the clients above @k/transport send through: an undici dispatcher
 * that knows its API server (URL, origin, base path) and the context's default namespace.
 * {@link Transport} is one, with TLS and auth; {@link apiServerDispatcher} makes one from any
 * undici dispatcher.
 */
export interface ApiServerDispatcher extends Dispatcher {
  readonly server: ServerInfo;
  readonly defaultNamespace: string;
}

/** ApiServerDispatcherOptions configure {@link apiServerDispatcher}. */
export interface ApiServerDispatcherOptions {
  /** defaultNamespace is the namespace clients use when a call names none (default `default`). */
  defaultNamespace?: string | undefined;
}

class BoundDispatcher extends BaseDispatcher implements ApiServerDispatcher {
  readonly server: ServerInfo;
  readonly defaultNamespace: string;
  readonly #dispatcher: Dispatcher;

  constructor(dispatcher: Dispatcher, server: ServerInfo, defaultNamespace: string) {
    super();
    this.#dispatcher = dispatcher;
    this.server = server;
    this.defaultNamespace = defaultNamespace;
  }

  override dispatch(
    options: Dispatcher.DispatchOptions,
    handler: Dispatcher.DispatchHandler,
  ): boolean {
    return this.#dispatcher.dispatch(
      options.origin === undefined ? { ...options, origin: this.server.origin } : options,
      handler,
    );
  }

  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    if (callback) return this.#dispatcher.close(callback);
    return this.#dispatcher.close();
  }

  override destroy(): Promise<void>;
  override destroy(error: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(error: Error | null, callback: () => void): void;
  override destroy(first?: Error | null | (() => void), second?: () => void): Promise<void> | void {
    if (typeof first === 'function') return this.#dispatcher.destroy(first);
    if (second) return this.#dispatcher.destroy(first ?? null, second);
    return this.#dispatcher.destroy(first ?? null);
  }
}

/**
 * apiServerDispatcher binds an undici dispatcher (an `Agent`, a `Pool`, a `MockAgent`) to an API
 * server, for clients that send without @k/transport's TLS and auth (tests, a local proxy such
 * as `kubectl proxy`). Closing the result closes `dispatcher`.
 */
export function apiServerDispatcher(
  dispatcher: Dispatcher,
  server: string | URL,
  options: ApiServerDispatcherOptions = {},
): ApiServerDispatcher {
  const where = 'apiServerDispatcher';
  if (typeof (dispatcher as Partial<Dispatcher> | undefined)?.dispatch !== 'function') {
    throw new TransportError(
      'ERR_TRANSPORT_INVALID_ARGUMENT',
      `${where}: dispatcher must be an undici Dispatcher (an Agent, a Pool)`,
    );
  }
  const url = server instanceof URL ? server.href : server;
  expectString(url, where, 'server');
  expectOptions(options, where);
  if (options.defaultNamespace !== undefined) {
    expectString(options.defaultNamespace, where, 'options.defaultNamespace');
  }
  return new BoundDispatcher(
    dispatcher,
    parseServerUrl(url, false),
    options.defaultNamespace || 'default',
  );
}
