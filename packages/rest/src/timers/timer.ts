/**
 * MAX_TIMER_DELAY_MS is the longest delay Node's `setTimeout` takes: 2^31 − 1 ms (about 24.8
 * days). A longer one fires after 1 ms with a `TimeoutOverflowWarning`, which turns a long wait
 * into a hot loop; {@link startTimer} chains timers instead.
 */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/**
 * Timer is a started timer of any length. `ref: true` timers are pending work and keep a plain
 * `node` program alive until they fire or are cancelled; `ref: false` is for housekeeping that must
 * not (an idle check on a connection that itself holds the event loop).
 */
export interface Timer {
  cancel(): void;
}

class ChainedTimer implements Timer {
  readonly #callback: () => void;
  readonly #deadline: number;
  readonly #ref: boolean;
  #handle: ReturnType<typeof setTimeout> | undefined;

  constructor(callback: () => void, delayMs: number, ref: boolean) {
    this.#callback = callback;
    this.#deadline = performance.now() + delayMs;
    this.#ref = ref;
    this.#arm(delayMs);
  }

  #arm(delayMs: number): void {
    this.#handle = setTimeout(() => this.#fire(), Math.min(delayMs, MAX_TIMER_DELAY_MS));
    if (!this.#ref) this.#handle.unref();
  }

  #fire(): void {
    const remaining = this.#deadline - performance.now();
    if (remaining > 0) this.#arm(Math.ceil(remaining));
    else {
      this.#handle = undefined;
      this.#callback();
    }
  }

  cancel(): void {
    if (this.#handle !== undefined) clearTimeout(this.#handle);
    this.#handle = undefined;
  }
}

class NodeTimer implements Timer {
  readonly #handle: ReturnType<typeof setTimeout>;

  constructor(callback: () => void, delayMs: number, ref: boolean) {
    this.#handle = setTimeout(callback, delayMs);
    if (!ref) this.#handle.unref();
  }

  cancel(): void {
    clearTimeout(this.#handle);
  }
}

/**
 * startTimer calls `callback` once after `delayMs` (any non-negative length; longer than
 * {@link MAX_TIMER_DELAY_MS} is chained, `Infinity` never fires). See {@link Timer} for `ref`.
 */
export function startTimer(callback: () => void, delayMs: number, ref: boolean): Timer {
  const delay = delayMs > 0 ? delayMs : 0;
  return delay <= MAX_TIMER_DELAY_MS
    ? new NodeTimer(callback, delay, ref)
    : new ChainedTimer(callback, delay, ref);
}
