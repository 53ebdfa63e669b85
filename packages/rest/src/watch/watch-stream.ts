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
import type { Watch, WatchEncoding, WatchEvent } from './watch.js';
import { isProtobufMediaType } from '../protobuf/protobuf-object.js';
import { ProtobufWatchDecoder } from '../protobuf/protobuf-watch-decoder.js';
import { WatchDecoder, type DecodedWatchEvent, type WatchFrameDecoder } from './watch-decoder.js';

const ignoreError = (): void => {};

/** WatchStreamSettings configure a {@link WatchStream}. */
export interface WatchStreamSettings {
  request: ApiErrorRequest;
  /** idleTimeoutMs: see `WatchStreamOptions.idleTimeoutMs` (0 disables). */
  idleTimeoutMs: number;
  /** omitManagedFields: see `WatchStreamOptions.omitManagedFields`. */
  omitManagedFields?: boolean;
  /** contentType is the response's: protobuf frames, else JSON lines. */
  contentType?: string | undefined;
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
  readonly encoding: WatchEncoding;
  readonly #body: Readable;
  readonly #options: WatchStreamSettings;
  #iterated = false;
  #closed = false;
  #unsubscribe: (() => void) | undefined;

  constructor(body: Readable, options: WatchStreamSettings) {
    this.#body = body;
    this.#options = options;
    this.encoding = isProtobufMediaType(options.contentType) ? 'protobuf' : 'json';
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

  #events(): AsyncIterator<WatchEvent<T>> {
    return new WatchEventIterator<T>(this.#body, this.#options, {
      encoding: this.encoding,
      closed: () => this.#closed,
      close: () => this.#close(undefined),
      toEvent: (event) => this.#toEvent(event),
    });
  }
}

interface StreamHooks<T> {
  readonly encoding: WatchEncoding;
  closed(): boolean;
  close(): void;
  toEvent(event: DecodedWatchEvent): WatchEvent<T>;
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/**
 * WatchEventIterator hands out a watch's events one `next()` at a time: the events decoded from
 * one chunk are returned from a queue, and only an empty queue waits for the next chunk (an async
 * generator costs two more promise hops per event: about 0.2 µs, of a small event's 12 µs). The
 * body is read only when the queue is empty, so backpressure holds as with a generator.
 * The consumer does not call `next()` again before the last call settles (`for await` doesn't).
 */
class WatchEventIterator<T> implements AsyncIterator<WatchEvent<T>> {
  readonly #body: Readable;
  readonly #chunks: AsyncIterator<Buffer>;
  readonly #settings: WatchStreamSettings;
  readonly #hooks: StreamHooks<T>;
  readonly #decoder: WatchFrameDecoder;
  #queue: DecodedWatchEvent[] = [];
  #index = 0;
  #finished = false;
  /** #ended: the body was read to its end (what is queued is the last of it). */
  #ended = false;
  /** #cut is the error to report once the queued events are delivered: the body ended mid-event. */
  #cut: ConnectionError | undefined;
  #idleError: RequestTimeoutError | undefined;
  // Idle bookkeeping is a timestamp per wait, not a timer reset per event: the timer wakes when
  // the timeout could have passed and re-arms for the rest if something arrived meanwhile.
  #lastActivity = performance.now();
  #inLoopBody = false;
  // The idle check is housekeeping: the open connection is what keeps the process alive.
  #timer: Timer | undefined;

  constructor(body: Readable, settings: WatchStreamSettings, hooks: StreamHooks<T>) {
    this.#body = body;
    this.#chunks = (body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    this.#settings = settings;
    this.#hooks = hooks;
    const decoderOptions = { omitManagedFields: settings.omitManagedFields ?? false };
    this.#decoder =
      hooks.encoding === 'protobuf'
        ? new ProtobufWatchDecoder(decoderOptions)
        : new WatchDecoder(decoderOptions);
    if (settings.idleTimeoutMs > 0) {
      this.#timer = startTimer(this.#onIdle, settings.idleTimeoutMs, false);
    }
  }

  readonly #onIdle = (): void => {
    const { idleTimeoutMs, request } = this.#settings;
    const remaining = this.#inLoopBody
      ? idleTimeoutMs
      : this.#lastActivity + idleTimeoutMs - performance.now();
    if (remaining > 0) {
      this.#timer = startTimer(this.#onIdle, Math.ceil(remaining), false);
      return;
    }
    this.#idleError = new RequestTimeoutError(
      'ERR_REST_WATCH_IDLE_TIMEOUT',
      request,
      idleTimeoutMs,
    );
    this.#body.destroy(this.#idleError);
  };

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    return this;
  }

  next(): Promise<IteratorResult<WatchEvent<T>>> {
    this.#inLoopBody = false;
    if (this.#finished || this.#hooks.closed()) return Promise.resolve(this.#finish());
    if (this.#index < this.#queue.length) return this.#deliver();
    if (this.#ended) return this.#afterLast();
    return this.#receive();
  }

  return(): Promise<IteratorResult<WatchEvent<T>>> {
    return Promise.resolve(this.#finish());
  }

  #deliver(): Promise<IteratorResult<WatchEvent<T>>> {
    const decoded = this.#queue[this.#index++] as DecodedWatchEvent;
    let event: WatchEvent<T>;
    try {
      event = this.#hooks.toEvent(decoded);
    } catch (error) {
      this.#finish();
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    this.#inLoopBody = true;
    return Promise.resolve({ done: false, value: event });
  }

  /** #afterLast ends the iteration once the body ended and every event was delivered. */
  #afterLast(): Promise<IteratorResult<WatchEvent<T>>> {
    this.#finish();
    return this.#cut ? Promise.reject(this.#cut) : Promise.resolve(DONE);
  }

  /** #receive reads chunks until one completes an event, or the body ends or breaks. */
  async #receive(): Promise<IteratorResult<WatchEvent<T>>> {
    try {
      for (;;) {
        this.#lastActivity = performance.now();
        const read = await this.#chunks.next();
        if (this.#hooks.closed()) return this.#finish();
        if (read.done) {
          this.#ended = true;
          const tail = this.#decoder.end();
          if (tail.incompleteBytes > 0) this.#cut = this.#endedMidEvent(tail.incompleteBytes);
          this.#queue = tail.events;
          this.#index = 0;
          break;
        }
        this.#queue = this.#decoder.push(read.value);
        this.#index = 0;
        if (this.#queue.length > 0) break;
      }
    } catch (error) {
      const outcome = this.#failure(error);
      this.#finish();
      if (outcome === DONE) return DONE;
      throw outcome;
    }
    return this.#index < this.#queue.length ? this.#deliver() : this.#afterLast();
  }

  #endedMidEvent(incompleteBytes: number): ConnectionError {
    const { request } = this.#settings;
    return new ConnectionError(
      `watch ${request.path} ended mid-event; ${incompleteBytes} bytes of an incomplete event were dropped`,
      { request, attempts: 1, mayHaveReachedServer: true },
    );
  }

  /** #failure says what a broken read means: the idle timeout, the caller's abort, a close, or a cut. */
  #failure(error: unknown): unknown {
    const { request, signal } = this.#settings;
    if (this.#idleError) return this.#idleError;
    if (signal?.aborted) return signal.reason;
    if (this.#hooks.closed()) return DONE;
    if (KubeError.isInstance(error)) return error;
    return new ConnectionError(
      `watch ${request.path} was cut: ${describeTransportFailure(error)}${
        this.#decoder.bufferedBytes > 0
          ? `; ${this.#decoder.bufferedBytes} bytes of an incomplete event were dropped`
          : ''
      }`,
      { request, attempts: 1, mayHaveReachedServer: true, cause: error },
    );
  }

  /** #finish stops the idle timer and closes the stream, once; returns the end of iteration. */
  #finish(): IteratorReturnResult<undefined> {
    if (!this.#finished) {
      this.#finished = true;
      this.#timer?.cancel();
      this.#hooks.close();
    }
    return DONE;
  }
}
