import type { InformerError } from '../errors.js';

/** ReflectorState is what a reflector is doing now. */
export type ReflectorState = 'starting' | 'listing' | 'watching' | 'backoff' | 'stopped';

/** ReflectorHealthObserver hears of each relist, watch restart and failure as it is counted (metrics). */
export interface ReflectorHealthObserver {
  relisted(): void;
  watchRestarted(): void;
  failed(error: InformerError): void;
}

/**
 * ReflectorHealth is what a reflector reports about itself. Times are on the reflector's clock
 * (milliseconds, `performance.now()` by default), `undefined` until the first one.
 */
export class ReflectorHealth {
  state: ReflectorState = 'starting';
  /** lastEventAt is when the last watch event (bookmarks included) or list arrived. */
  lastEventAt: number | undefined;
  /** lastListAt is when the last list (or streaming list) completed. */
  lastListAt: number | undefined;
  /** watchRestarts counts watches reopened without a relist (ended, cut or stalled). */
  watchRestarts = 0;
  /** relists counts lists after the first one. */
  relists = 0;
  /** failures counts every failure; consecutiveFailures those since the last watch was established. */
  failures = 0;
  consecutiveFailures = 0;
  lastError: InformerError | undefined;
  lastErrorAt: number | undefined;
  readonly #observer: ReflectorHealthObserver | undefined;

  constructor(observer?: ReflectorHealthObserver) {
    this.#observer = observer;
  }

  relisted(): void {
    this.relists += 1;
    this.#observer?.relisted();
  }

  watchRestarted(): void {
    this.watchRestarts += 1;
    this.#observer?.watchRestarted();
  }

  failed(error: InformerError, at: number): void {
    this.#observer?.failed(error);
    this.failures += 1;
    this.consecutiveFailures += 1;
    this.lastError = error;
    this.lastErrorAt = at;
  }

  watchEstablished(): void {
    this.consecutiveFailures = 0;
  }

  eventAt(at: number): void {
    this.lastEventAt = at;
  }

  listedAt(at: number): void {
    this.lastListAt = at;
    this.lastEventAt = at;
    this.consecutiveFailures = 0;
  }
}
