import type { IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import { KubeError } from '@k/config/errors';
import type { Dispatcher } from 'undici';
import type {
  ClientCertificate,
  CredentialProvider,
  Credentials,
} from '../auth/credential-provider.js';
import { TransportError } from '../errors.js';
import { hasHeader, withHeaders } from './header-list.js';

type DispatchController = Dispatcher.DispatchController;
type DispatchHandler = Dispatcher.DispatchHandler;
type DispatchOptions = Dispatcher.DispatchOptions;
type Dispatch = Dispatcher.Dispatch;

/** The most of a 401 body held back while deciding whether to replay (a Status is ~200 bytes). */
const DEFAULT_MAX_BUFFERED_UNAUTHORIZED_BYTES = 64 * 1024;

/** AuthInterceptorOptions configure {@link authInterceptor}. */
export interface AuthInterceptorOptions {
  provider: CredentialProvider;
  /**
   * onClientCertificate receives the client certificate of the credentials a request is about to
   * be sent with, before it is dispatched, so the connection it goes out on presents it.
   */
  onClientCertificate?: (certificate: ClientCertificate) => void;
  /** maxBufferedUnauthorizedBytes bounds the 401 body held back while deciding on a replay. */
  maxBufferedUnauthorizedBytes?: number;
}

/**
 * isReplayableBody reports whether a request body can be sent a second time: no body, a string
 * or bytes. Streams, iterables and form data are consumed by the first attempt.
 */
export function isReplayableBody(body: DispatchOptions['body']): boolean {
  return (
    body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array
  );
}

/**
 * credentialsError is what fails a request whose provider could not supply credentials: the
 * provider's own `KubeError` (e.g. an exec plugin error) or abort reason as it is, anything else
 * wrapped as `ERR_TRANSPORT_CREDENTIALS` naming the provider's kind.
 */
export function credentialsError(kind: string, error: unknown): Error {
  if (KubeError.isInstance(error)) return error;
  if (error instanceof Error && error.name === 'AbortError') return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new TransportError(
    'ERR_TRANSPORT_CREDENTIALS',
    `getting credentials from the "${kind}" credential provider: ${reason}`,
    { cause: error },
  );
}

/**
 * ForwardingController is the one controller the downstream handler sees for a request that may
 * be sent twice: it forwards pause, resume and abort to the attempt in flight, and reports an
 * abort that arrives between attempts (or while credentials are awaited) through `onAbort`.
 */
class ForwardingController implements DispatchController {
  #target: DispatchController | undefined;
  #aborted = false;
  #paused = false;
  #reason: Error | null = null;
  readonly #onAbort: (reason: Error) => void;

  constructor(onAbort: (reason: Error) => void) {
    this.#onAbort = onAbort;
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  get paused(): boolean {
    return this.#paused;
  }

  get reason(): Error | null {
    return this.#reason;
  }

  get rawHeaders(): DispatchController['rawHeaders'] {
    return this.#target?.rawHeaders;
  }

  set rawHeaders(value: DispatchController['rawHeaders']) {
    if (this.#target) this.#target.rawHeaders = value;
  }

  get rawTrailers(): DispatchController['rawTrailers'] {
    return this.#target?.rawTrailers;
  }

  set rawTrailers(value: DispatchController['rawTrailers']) {
    if (this.#target) this.#target.rawTrailers = value;
  }

  attach(target: DispatchController | undefined): void {
    this.#target = target;
    if (!target) return;
    if (this.#aborted && this.#reason) target.abort(this.#reason);
    else if (this.#paused) target.pause();
  }

  abort(reason: Error): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    if (this.#target) this.#target.abort(reason);
    else this.#onAbort(reason);
  }

  pause(): void {
    this.#paused = true;
    this.#target?.pause();
  }

  resume(): void {
    this.#paused = false;
    this.#target?.resume();
  }
}

interface HeldResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  statusMessage: string | undefined;
  chunks: Buffer[];
  size: number;
  replay: Promise<boolean>;
}

/**
 * AuthHandler sends one request with credentials from the provider and, on a 401, lets the
 * provider invalidate them and replays the request once with fresh credentials when the
 * provider says that may succeed and the body is replayable. Otherwise the 401 reaches the
 * caller unchanged. The downstream handler sees exactly one request start and one outcome.
 */
export class AuthHandler implements DispatchHandler {
  readonly #dispatch: Dispatch;
  readonly #request: DispatchOptions;
  readonly #handler: DispatchHandler;
  readonly #options: AuthInterceptorOptions;
  readonly #controller: ForwardingController;
  #replayed = false;
  #settled = false;
  #credentials: Credentials = {};
  #held: HeldResponse | undefined;

  constructor(
    dispatch: Dispatch,
    request: DispatchOptions,
    handler: DispatchHandler,
    options: AuthInterceptorOptions,
  ) {
    this.#dispatch = dispatch;
    this.#request = request;
    this.#handler = handler;
    this.#options = options;
    this.#controller = new ForwardingController((reason) => this.#fail(reason));
  }

  /** start tells the caller the request started, then fetches credentials and sends it. */
  start(): void {
    this.#handler.onRequestStart?.(this.#controller, {});
    this.#send();
  }

  #send(): void {
    const { provider } = this.#options;
    const signal = (this.#request as { signal?: unknown }).signal;
    let pending: Promise<Credentials>;
    try {
      pending = provider.getCredentials(signal instanceof AbortSignal ? { signal } : undefined);
    } catch (error) {
      pending = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    pending.then(
      (credentials) => this.#sendWith(credentials),
      (error: unknown) => this.#fail(credentialsError(provider.kind, error)),
    );
  }

  #sendWith(credentials: Credentials): void {
    if (this.#settled) return;
    const reason = this.#controller.reason;
    if (reason) {
      this.#fail(reason);
      return;
    }
    this.#credentials = credentials;
    if (credentials.clientCertificate) {
      this.#options.onClientCertificate?.(credentials.clientCertificate);
    }
    const headers = credentials.authorization
      ? withHeaders(this.#request.headers, ['authorization', credentials.authorization])
      : this.#request.headers;
    try {
      this.#dispatch({ ...this.#request, headers }, this);
    } catch (error) {
      this.#fail(error as Error);
    }
  }

  #fail(error: Error): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#handler.onResponseError?.(this.#controller, error);
  }

  onRequestStart(controller: DispatchController): void {
    this.#controller.attach(controller);
  }

  onRequestUpgrade(
    _controller: DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    socket: Duplex,
  ): void {
    this.#settled = true;
    this.#handler.onRequestUpgrade?.(this.#controller, statusCode, headers, socket);
  }

  onResponseStart(
    _controller: DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    statusMessage?: string,
  ): void {
    const { provider } = this.#options;
    if (statusCode === 401 && !this.#replayed && provider.invalidate) {
      const replay = this.#invalidate(provider);
      if (isReplayableBody(this.#request.body)) {
        this.#held = { statusCode, headers, statusMessage, chunks: [], size: 0, replay };
        return;
      }
    }
    this.#handler.onResponseStart?.(this.#controller, statusCode, headers, statusMessage);
  }

  onResponseData(_controller: DispatchController, chunk: Buffer): void {
    const held = this.#held;
    if (!held) {
      this.#handler.onResponseData?.(this.#controller, chunk);
      return;
    }
    held.chunks.push(chunk);
    held.size += chunk.length;
    const limit =
      this.#options.maxBufferedUnauthorizedBytes ?? DEFAULT_MAX_BUFFERED_UNAUTHORIZED_BYTES;
    if (held.size > limit) this.#release(held);
  }

  onResponseEnd(_controller: DispatchController, trailers: IncomingHttpHeaders): void {
    const held = this.#held;
    if (!held) {
      this.#settled = true;
      this.#handler.onResponseEnd?.(this.#controller, trailers);
      return;
    }
    this.#held = undefined;
    this.#controller.attach(undefined);
    void held.replay.then((replay) => {
      if (this.#settled) return;
      if (replay && !this.#controller.aborted) {
        this.#replayed = true;
        this.#send();
        return;
      }
      this.#release(held);
      this.#settled = true;
      this.#handler.onResponseEnd?.(this.#controller, trailers);
    });
  }

  onResponseError(_controller: DispatchController, error: Error): void {
    this.#held = undefined;
    this.#fail(error);
  }

  /** Passes a held-back 401 on to the caller; from then on the response streams through. */
  #release(held: HeldResponse): void {
    this.#held = undefined;
    this.#handler.onResponseStart?.(
      this.#controller,
      held.statusCode,
      held.headers,
      held.statusMessage,
    );
    for (const chunk of held.chunks) this.#handler.onResponseData?.(this.#controller, chunk);
  }

  #invalidate(provider: CredentialProvider): Promise<boolean> {
    try {
      return Promise.resolve(provider.invalidate?.(this.#credentials) ?? false).catch(() => false);
    } catch {
      return Promise.resolve(false);
    }
  }
}

/**
 * authInterceptor authenticates every request that has no `Authorization` header with
 * credentials from `provider` (asked per request; the provider caches and single-flights), and
 * handles a 401 as {@link AuthHandler} describes: at most one replay per request, only for
 * replayable bodies, only when `provider.invalidate` says fresh credentials may succeed. A
 * provider failure fails the request with {@link credentialsError}. Requests that carry their own
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
