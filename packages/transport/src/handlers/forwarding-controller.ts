import type { Dispatcher } from 'undici';

type DispatchController = Dispatcher.DispatchController;

/**
 * ForwardingController is the one controller the downstream handler sees for a request that may
 * be sent twice: it forwards pause, resume and abort to the attempt in flight, and reports an
 * abort that arrives between attempts (or while credentials are awaited) through `onAbort`.
 */
export class ForwardingController implements DispatchController {
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
