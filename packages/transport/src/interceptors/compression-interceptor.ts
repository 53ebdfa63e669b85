import type { IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import { createGunzip, type Gunzip } from 'node:zlib';
import type { Dispatcher } from 'undici';
import { hasHeader, withHeaders } from './header-list.js';

type DispatchController = Dispatcher.DispatchController;
type DispatchHandler = Dispatcher.DispatchHandler;

const ACCEPT_GZIP = ['accept-encoding', 'gzip'];

/**
 * GzipDecodingHandler decodes a `Content-Encoding: gzip` response body for the handler it wraps
 * and removes `content-encoding` and `content-length` from the headers it passes on. Other
 * responses pass through untouched. Backpressure: when the decoder's buffer is full the
 * response is paused until it drains. A corrupt body fails the request with zlib's error.
 */
export class GzipDecodingHandler implements DispatchHandler {
  readonly #handler: DispatchHandler;
  #gunzip: Gunzip | undefined;
  #trailers: IncomingHttpHeaders = {};
  #inputEnded = false;
  #done = false;

  constructor(handler: DispatchHandler) {
    this.#handler = handler;
  }

  onRequestStart(controller: DispatchController, context: unknown): void {
    this.#handler.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(
    controller: DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    socket: Duplex,
  ): void {
    this.#handler.onRequestUpgrade?.(controller, statusCode, headers, socket);
  }

  onResponseStart(
    controller: DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    statusMessage?: string,
  ): void {
    const encoding = headers['content-encoding'];
    if (
      typeof encoding === 'string' &&
      encoding.trim().toLowerCase() === 'gzip' &&
      statusCode >= 200 &&
      statusCode !== 204 &&
      statusCode !== 304
    ) {
      const decoded = { ...headers };
      delete decoded['content-encoding'];
      delete decoded['content-length'];
      const gunzip = createGunzip();
      this.#gunzip = gunzip;
      gunzip.on('data', (chunk: Buffer) => {
        if (!this.#done) this.#handler.onResponseData?.(controller, chunk);
      });
      gunzip.on('end', () => {
        if (this.#done) return;
        this.#done = true;
        this.#handler.onResponseEnd?.(controller, this.#trailers);
      });
      gunzip.on('error', (error: Error) => this.#fail(controller, error));
      this.#handler.onResponseStart?.(controller, statusCode, decoded, statusMessage);
      return;
    }
    this.#handler.onResponseStart?.(controller, statusCode, headers, statusMessage);
  }

  onResponseData(controller: DispatchController, chunk: Buffer): void {
    const gunzip = this.#gunzip;
    if (!gunzip) {
      this.#handler.onResponseData?.(controller, chunk);
      return;
    }
    if (!gunzip.write(chunk) && !controller.paused) {
      controller.pause();
      gunzip.once('drain', () => controller.resume());
    }
  }

  onResponseEnd(controller: DispatchController, trailers: IncomingHttpHeaders): void {
    if (!this.#gunzip) {
      this.#handler.onResponseEnd?.(controller, trailers);
      return;
    }
    this.#trailers = trailers;
    this.#inputEnded = true;
    this.#gunzip.end();
  }

  onResponseError(controller: DispatchController, error: Error): void {
    this.#gunzip?.destroy();
    if (this.#done) return;
    this.#done = true;
    this.#handler.onResponseError?.(controller, error);
  }

  #fail(controller: DispatchController, error: Error): void {
    if (this.#done) return;
    if (!this.#inputEnded && !controller.aborted) {
      // Still receiving: abort; undici then reports the error through onResponseError.
      controller.abort(error);
      return;
    }
    this.onResponseError(controller, error);
  }
}

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
