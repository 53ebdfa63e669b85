import type { IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Dispatcher } from 'undici';
import { credentialsError } from '../auth/credentials-error.js';
import type { CredentialProvider, Credentials } from '../auth/credential-provider.js';
import type { AuthInterceptorOptions } from '../interceptors/auth-interceptor.js';
import { withHeaders } from '../interceptors/header-list.js';
import { ForwardingController } from './forwarding-controller.js';
import { isReplayableBody } from './is-replayable-body.js';

type DispatchController = Dispatcher.DispatchController;
type DispatchHandler = Dispatcher.DispatchHandler;
type DispatchOptions = Dispatcher.DispatchOptions;
type Dispatch = Dispatcher.Dispatch;

/** The most of a 401 body held back while deciding whether to replay (a Status is ~200 bytes). */
const DEFAULT_MAX_BUFFERED_UNAUTHORIZED_BYTES = 64 * 1024;

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
