import { Readable } from 'node:stream';
import { ConnectionError, type ApiErrorRequest } from '../errors.js';
import { describeTransportFailure } from '../retry/transport-failure.js';

/**
 * ResponseBodyStream is the `Readable` that `stream()` (pod logs, downloads) hands out, in front
 * of undici's response body: back-pressure passes through (the socket is paused while the
 * consumer is), a connection cut mid-body is a `ConnectionError`, an abort by the request's
 * signal is the signal's reason, and `destroy()` without an error — the way to stop reading
 * early — ends it quietly and closes the connection. (undici's own body turns a plain `destroy()`
 * into an `UND_ERR_ABORTED` error event, which kills a program that has no error listener.)
 */
export class ResponseBodyStream extends Readable {
  readonly #body: Readable;

  constructor(body: Readable, request: ApiErrorRequest, signal: AbortSignal | undefined) {
    super();
    this.#body = body;
    body.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) body.pause();
    });
    body.once('end', () => this.push(null));
    body.on('error', (error: Error) => {
      if (this.destroyed) return;
      if (signal?.aborted) {
        this.destroy(signal.reason instanceof Error ? signal.reason : error);
        return;
      }
      this.destroy(
        new ConnectionError(
          `${request.method.toLowerCase()} ${request.path} was cut: ${describeTransportFailure(error)}`,
          { request, attempts: 1, mayHaveReachedServer: true, cause: error },
        ),
      );
    });
  }

  override _read(): void {
    this.#body.resume();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // The body's error listener above stays, so its own abort error on this destroy is quiet.
    if (!this.#body.destroyed) this.#body.destroy();
    callback(error);
  }
}
