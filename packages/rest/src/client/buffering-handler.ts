import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import type { RequestScope } from './request-scope.js';

/** BufferedAttempt is one attempt's answer read to the end: status, headers and body bytes. */
export interface BufferedAttempt {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** failure is the error that cut the body short after the headers came (retry decides). */
  failure: Error | undefined;
}

type DispatchController = Dispatcher.DispatchController;

/**
 * BufferingHandler reads one attempt of a buffered request straight from undici's dispatch
 * callbacks into a list of chunks: no response stream, no request-API wrapper objects — the
 * per-request cost of `dispatcher.request()` that a buffered request never needed. A 2xx body is
 * kept whole; any other is kept up to `errorBodyLimit` bytes (what a `Status` needs) and the
 * connection is then abandoned. The request scope's abort (timeout, caller's signal) aborts the
 * attempt. It settles once: with the answer, or with the error before any answer came.
 */
export class BufferingHandler implements Dispatcher.DispatchHandler {
  readonly promise: Promise<BufferedAttempt>;
  readonly #scope: RequestScope;
  readonly #errorBodyLimit: number;
  #resolve!: (attempt: BufferedAttempt) => void;
  #reject!: (error: Error) => void;
  #controller: DispatchController | undefined;
  #statusCode = 0;
  #headers: IncomingHttpHeaders = {};
  #chunks: Buffer[] = [];
  #bytes = 0;
  #limit = Infinity;
  #settled = false;
  readonly #onAbort = (): void => {
    this.#controller?.abort(this.#scope.reason as Error);
  };

  constructor(scope: RequestScope, errorBodyLimit: number) {
    this.#scope = scope;
    this.#errorBodyLimit = errorBodyLimit;
    this.promise = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  onRequestStart(controller: DispatchController): void {
    this.#controller = controller;
    if (this.#scope.aborted) controller.abort(this.#scope.reason as Error);
    else this.#scope.once('abort', this.#onAbort);
  }

  onResponseStart(
    _controller: DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ): void {
    this.#statusCode = statusCode;
    this.#headers = headers;
    if (statusCode < 200 || statusCode > 206) this.#limit = this.#errorBodyLimit;
  }

  onResponseData(controller: DispatchController, chunk: Buffer): void {
    if (this.#bytes >= this.#limit) return;
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
    // An error body past the limit: keep what a Status needs and let the connection go.
    if (this.#bytes >= this.#limit) {
      this.#finish(undefined);
      controller.abort(new Error('error body over the limit'));
    }
  }

  onResponseEnd(): void {
    this.#finish(undefined);
  }

  onResponseError(_controller: DispatchController, error: Error): void {
    if (this.#settled) return;
    // Cut after the headers: the answer so far, with the failure, lets the caller decide.
    if (this.#statusCode !== 0) this.#finish(error);
    else {
      this.#settled = true;
      this.#scope.removeListener('abort', this.#onAbort);
      this.#reject(error);
    }
  }

  #finish(failure: Error | undefined): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#scope.removeListener('abort', this.#onAbort);
    const chunks = this.#chunks;
    // The handler may outlive the answer (undici holds it until the request is done): the
    // chunks must not, or a large list is held twice.
    this.#chunks = [];
    const length = Math.min(this.#bytes, this.#limit);
    const only = chunks.length === 1 ? (chunks[0] as Buffer) : undefined;
    const body = only
      ? only.length > length
        ? only.subarray(0, length)
        : only
      : Buffer.concat(chunks, length);
    this.#resolve({ statusCode: this.#statusCode, headers: this.#headers, body, failure });
  }
}
