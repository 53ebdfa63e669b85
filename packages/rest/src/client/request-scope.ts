import { RequestTimeoutError } from '../errors.js';
import type { RestRequest } from '../request/rest-request.js';
import { onAbort } from '../timers/on-abort.js';
import { startTimer, type Timer } from '../timers/timer.js';

type AbortListener = () => void;

/**
 * RequestScope is one request's cancellation: the request timeout and the caller's signal
 * combined. A buffered request's handler listens to the scope itself (`once('abort')`) — an
 * `AbortController` per request (and its EventTarget listener bookkeeping) cost more than the
 * rest of the client's per-request work together. A real `AbortSignal` is made only when
 * something needs one: a wait (throttle, retry delay), or undici's `request()` for a stream
 * (undici 8 takes any `signal` with an `aborted` property for an AbortSignal). The caller's signal
 * gets at most one listener however many requests share it ({@link onAbort}), and undici never
 * listens to it directly. The timeout timer is pending work: it holds the event loop open until
 * `release()`. One per request; `release()` must be called when the request is finished.
 */
export class RequestScope {
  aborted = false;
  reason: unknown = undefined;
  #listeners: AbortListener[] | undefined;
  #controller: AbortController | undefined;
  readonly #timer: Timer | undefined;
  readonly #deadline: number;
  readonly #callerSignal: AbortSignal | undefined;
  readonly #unsubscribe: (() => void) | undefined;

  constructor(request: RestRequest, timeoutMs: number) {
    const caller = request.signal;
    this.#callerSignal = caller;
    this.#deadline = timeoutMs > 0 ? performance.now() + timeoutMs : Infinity;
    if (timeoutMs > 0) {
      this.#timer = startTimer(
        () => {
          this.abort(
            new RequestTimeoutError(
              'ERR_REST_REQUEST_TIMEOUT',
              { method: request.method, path: request.path },
              timeoutMs,
            ),
          );
        },
        timeoutMs,
        true,
      );
    }
    if (caller) {
      if (caller.aborted) this.abort(caller.reason);
      else this.#unsubscribe = onAbort(caller, () => this.abort(caller.reason));
    }
  }

  /** signal is a real AbortSignal that aborts with the scope, for APIs that need one. */
  get signal(): AbortSignal | undefined {
    if (this.#timer === undefined && this.#callerSignal === undefined) return undefined;
    if (!this.#controller) {
      const controller = new AbortController();
      this.#controller = controller;
      if (this.aborted) controller.abort(this.reason);
    }
    return this.#controller.signal;
  }

  /** remainingMs is the time left before the request times out (`Infinity` without a timeout). */
  remainingMs(): number {
    return this.#deadline - performance.now();
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners) for (const listener of listeners) listener();
  }

  /** once adds an abort listener (called once, at the abort). */
  once(event: string, listener: AbortListener): this {
    if (event === 'abort') (this.#listeners ??= []).push(listener);
    return this;
  }

  /** removeListener removes an abort listener added with {@link once}. */
  removeListener(event: string, listener: AbortListener): this {
    if (event !== 'abort' || !this.#listeners) return this;
    const index = this.#listeners.indexOf(listener);
    if (index !== -1) this.#listeners.splice(index, 1);
    return this;
  }

  /** throwIfAborted throws the abort reason (timeout or the caller's) when the scope is aborted. */
  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
    if (this.#callerSignal?.aborted) throw this.#callerSignal.reason;
  }

  /** guard awaits `promise` and turns any rejection after an abort into the abort reason. */
  async guard<T>(promise: Promise<T>): Promise<T> {
    try {
      return await promise;
    } catch (error) {
      this.throwIfAborted();
      throw error;
    }
  }

  release(): void {
    this.#timer?.cancel();
    this.#unsubscribe?.();
    this.#listeners = undefined;
  }
}
