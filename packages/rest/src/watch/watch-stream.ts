import type { Readable } from 'node:stream';
import { KubeError } from '@k/config/errors';
import {
  ApiError,
  ConnectionError,
  RequestTimeoutError,
  RestUsageError,
  type ApiErrorRequest,
} from '../errors.js';
import { describeTransportFailure } from '../retry/transport-failure.js';
import { onAbort } from '../timers/on-abort.js';
import { startTimer, type Timer } from '../timers/timer.js';
import type { Watch, WatchEvent } from './watch.js';
import { WatchDecoder, type DecodedWatchEvent } from './watch-decoder.js';

const ignoreError = (): void => {};

/** WatchStreamSettings configure a {@link WatchStream}. */
export interface WatchStreamSettings {
  request: ApiErrorRequest;
  /** idleTimeoutMs: see `WatchStreamOptions.idleTimeoutMs` (0 disables). */
  idleTimeoutMs: number;
  /** omitManagedFields: see `WatchStreamOptions.omitManagedFields`. */
  omitManagedFields?: boolean;
  signal?: AbortSignal | undefined;
  /** onClose runs once when the stream is closed for any reason. */
  onClose?: () => void;
}

/**
 * WatchStream is the {@link Watch} over an open watch response: events are decoded as bytes
 * arrive and yielded one by one, with backpressure (nothing more is read while the loop body
 * runs). It ends normally when the server ends the watch; it throws an `ApiError` for an ERROR
 * event (410 → `isGone`), `WatchDecodeError` for a bad frame, `RequestTimeoutError`
 * (`ERR_REST_WATCH_IDLE_TIMEOUT`) when nothing arrives for the idle timeout — time spent in the loop
 * body does not count — and `ConnectionError` when the connection breaks or ends mid-event.
 * Breaking out of the loop, `close()` or the signal destroy the body, closing the connection.
 * It can be iterated once.
 */
export class WatchStream<T> implements Watch<T> {
  readonly #body: Readable;
  readonly #options: WatchStreamSettings;
  #iterated = false;
  #closed = false;
  #unsubscribe: (() => void) | undefined;

  constructor(body: Readable, options: WatchStreamSettings) {
    this.#body = body;
    this.#options = options;
    const signal = options.signal;
    if (signal) {
      if (signal.aborted) this.#close(signal.reason);
      else this.#unsubscribe = onAbort(signal, () => this.#close(signal.reason));
    }
  }

  /** close ends the watch and closes its connection; a running loop ends normally. */
  close(): void {
    this.#close(undefined);
  }

  #close(reason: unknown): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribe?.();
    // undici's body reports a destroy as an error event; closing a watch early must be quiet.
    this.#body.on('error', ignoreError);
    this.#body.destroy(reason instanceof Error ? reason : undefined);
    this.#options.onClose?.();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    if (this.#iterated) {
      throw new RestUsageError('ERR_REST_WATCH_REUSED', 'a watch can be iterated only once');
    }
    this.#iterated = true;
    return this.#events();
  }

  #toEvent(event: DecodedWatchEvent): WatchEvent<T> {
    if (event.type === 'ERROR') {
      throw new ApiError(event.object, { httpStatusCode: 200, request: this.#options.request });
    }
    return event as WatchEvent<T>;
  }

  async *#events(): AsyncGenerator<WatchEvent<T>, void, undefined> {
    const { request, idleTimeoutMs, signal } = this.#options;
    const body = this.#body;
    const decoder = new WatchDecoder({
      omitManagedFields: this.#options.omitManagedFields ?? false,
    });
    let idleError: RequestTimeoutError | undefined;
    // Idle bookkeeping is a timestamp per chunk, not a timer reset per event: the timer wakes
    // when the timeout could have passed and re-arms for the rest if something arrived meanwhile.
    let lastActivity = performance.now();
    let inLoopBody = false;
    // The idle check is housekeeping: the open connection is what keeps the process alive.
    let timer: Timer | undefined;
    const onIdle = (): void => {
      const now = performance.now();
      const remaining = inLoopBody ? idleTimeoutMs : lastActivity + idleTimeoutMs - now;
      if (remaining > 0) {
        timer = startTimer(onIdle, Math.ceil(remaining), false);
        return;
      }
      idleError = new RequestTimeoutError('ERR_REST_WATCH_IDLE_TIMEOUT', request, idleTimeoutMs);
      body.destroy(idleError);
    };
    if (idleTimeoutMs > 0) timer = startTimer(onIdle, idleTimeoutMs, false);
    try {
      if (this.#closed) return;
      for await (const chunk of body as AsyncIterable<Buffer>) {
        const events = decoder.push(chunk);
        for (const event of events) {
          const typed = this.#toEvent(event);
          inLoopBody = true;
          yield typed;
          inLoopBody = false;
          if (this.#closed) return;
        }
        lastActivity = performance.now();
      }
      const tail = decoder.end();
      for (const event of tail.events) yield this.#toEvent(event);
      if (tail.incompleteBytes > 0) {
        throw new ConnectionError(
          `watch ${request.path} ended mid-event; ${tail.incompleteBytes} bytes of an incomplete event were dropped`,
          { request, attempts: 1, mayHaveReachedServer: true },
        );
      }
    } catch (error) {
      if (idleError) throw idleError;
      if (signal?.aborted) throw signal.reason;
      if (this.#closed) return;
      if (KubeError.isInstance(error)) throw error;
      throw new ConnectionError(
        `watch ${request.path} was cut: ${describeTransportFailure(error)}${
          decoder.bufferedBytes > 0
            ? `; ${decoder.bufferedBytes} bytes of an incomplete event were dropped`
            : ''
        }`,
        { request, attempts: 1, mayHaveReachedServer: true, cause: error },
      );
    } finally {
      timer?.cancel();
      this.#close(undefined);
    }
  }
}
