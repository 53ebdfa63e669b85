import { describeValue } from '../describe-value.js';
import { RestConfigurationError } from '../errors.js';
import type { HttpMethod } from '../request/rest-request.js';
import { classifyTransportFailure, describeTransportFailure } from './transport-failure.js';

/** RetryRequest is what the policy needs to know about a request to decide on a replay. */
export interface RetryRequest {
  method: HttpMethod;
  /** watch is true for a watch being established (always a GET). */
  watch: boolean;
  /** replayable is false when the body is a stream that was already consumed. */
  replayable: boolean;
}

/**
 * AttemptOutcome is how one attempt ended: a response (status and the headers that matter), or a
 * transport error thrown before a complete response was read.
 */
export type AttemptOutcome =
  | { statusCode: number; retryAfter?: string | undefined; flowSchemaUid?: string | undefined }
  | { error: unknown };

/** RetryDecision says how long to wait before the next attempt and why. */
export interface RetryDecision {
  delayMs: number;
  /**
   * pauseMs > 0 holds back every request to the same API group for this long (a 429 with
   * Retry-After: the server pushes back, so the others should not hit the same wall).
   */
  pauseMs: number;
  /** reason is client-go's retry reason, e.g. `retries: 1, retry-after: 2s - retry-reason: 503`. */
  reason: string;
}

/** RetryPolicyOptions configure a {@link RetryPolicy}. */
export interface RetryPolicyOptions {
  /** maxRetries is the number of retries after the first attempt (default 10; 0 disables). */
  maxRetries?: number | undefined;
  /** initialBackoffMs is the first backoff step (default 100). */
  initialBackoffMs?: number | undefined;
  /** maxBackoffMs caps a backoff step (default 10 000). */
  maxBackoffMs?: number | undefined;
  /** jitter adds up to this fraction of a step at random (default 0.5). */
  jitter?: number | undefined;
  /**
   * maxRetryAfterMs is the longest `Retry-After` the client waits for (default 60 000): a server
   * asking for more is not retried, its `ApiError` (with `retryAfterSeconds`) is returned at once,
   * so one misbehaving endpoint cannot park a request, or the requests behind it, for hours.
   */
  maxRetryAfterMs?: number | undefined;
  /** random returns a number in [0, 1); tests substitute a fixed one. */
  random?: (() => number) | undefined;
}

/** DEFAULT_MAX_RETRY_AFTER_MS is the longest Retry-After waited for by default (60 s). */
const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

/** DEFAULT_MAX_RETRIES is client-go's `maxRetries` default. */
const DEFAULT_MAX_RETRIES = 10;

const RETRY_AFTER_INTEGER = /^[+-]?\d+$/;

/**
 * parseRetryAfter reads a `Retry-After` header as client-go does: an integer number of seconds
 * (negative counts as 0); an HTTP date or a fraction is not understood and gives `undefined`.
 */
export function parseRetryAfter(value: string | readonly string[] | undefined): number | undefined {
  const text = typeof value === 'string' ? value : value?.[0];
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  if (!RETRY_AFTER_INTEGER.test(trimmed)) return undefined;
  return Math.max(0, Number.parseInt(trimmed, 10));
}

function durationOption(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new RestConfigurationError(
      `retry ${name} must be a finite number ≥ 0, got ${describeValue(value)}`,
    );
  }
  return value;
}

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return Number.isInteger(seconds) ? `${seconds}s` : `${seconds.toFixed(3).replace(/0+$/, '')}s`;
}

/**
 * RetryPolicy decides whether an attempt is replayed, how long to wait first, and whether the
 * shared throttle pauses. The rules (client-go's `with_retry.go`, made safe for replay):
 *
 * - A response with status 429 or ≥ 500 and an integer `Retry-After` of at most
 *   `maxRetryAfterMs` is retried for every verb: the server says it did not do the work and asks
 *   for the retry. A 429 also holds back the other requests to the same API group for the
 *   Retry-After time. 429/5xx without Retry-After, or asking for longer, are not retried.
 * - A broken connection (reset, closed, truncated body) or a socket timeout is retried only for
 *   GET and HEAD (and watch establishment): a POST, PUT, PATCH or DELETE may have reached the
 *   server, so it is never replayed silently — it fails with a `ConnectionError`.
 * - Connection refused, DNS failures and TLS errors are never retried (client-go's rule).
 * - A request whose body is a stream is never retried.
 * - The wait is `max(Retry-After, backoff)`, where backoff starts at `initialBackoffMs`, doubles
 *   per retry up to `maxBackoffMs`, plus up to `jitter` of itself at random.
 *
 * Stateless and safe to share; the retry count lives in the caller's loop.
 */
export class RetryPolicy {
  readonly maxRetries: number;
  readonly #initialBackoffMs: number;
  readonly #maxBackoffMs: number;
  readonly #jitter: number;
  readonly #maxRetryAfterMs: number;
  readonly #random: () => number;

  constructor(options: RetryPolicyOptions = {}) {
    const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    if (typeof maxRetries !== 'number' || !Number.isFinite(maxRetries)) {
      throw new RestConfigurationError(
        `retry maxRetries must be a finite number, got ${describeValue(maxRetries)}`,
      );
    }
    this.maxRetries = Math.max(0, Math.trunc(maxRetries));
    this.#initialBackoffMs = durationOption('initialBackoffMs', options.initialBackoffMs, 100);
    this.#maxBackoffMs = durationOption('maxBackoffMs', options.maxBackoffMs, 10_000);
    this.#maxRetryAfterMs = durationOption(
      'maxRetryAfterMs',
      options.maxRetryAfterMs,
      DEFAULT_MAX_RETRY_AFTER_MS,
    );
    this.#jitter = durationOption('jitter', options.jitter, 0.5);
    this.#random = options.random ?? Math.random;
  }

  /** never is a policy that makes exactly one attempt. */
  static never(): RetryPolicy {
    return new RetryPolicy({ maxRetries: 0 });
  }

  /** backoffMs returns the jittered backoff before retry number `retry` (0 for the first retry). */
  backoffMs(retry: number): number {
    const step = Math.min(this.#maxBackoffMs, this.#initialBackoffMs * 2 ** retry);
    return step + step * this.#jitter * this.#random();
  }

  /**
   * decide returns how to retry after an attempt, or `undefined` when the outcome is final.
   * `retriesSoFar` is 0 after the first attempt; `maxRetries` overrides the policy's limit.
   */
  decide(
    request: RetryRequest,
    retriesSoFar: number,
    outcome: AttemptOutcome,
    maxRetries: number = this.maxRetries,
  ): RetryDecision | undefined {
    if (retriesSoFar >= maxRetries || !request.replayable) return undefined;
    const retry = retriesSoFar + 1;
    if ('error' in outcome) {
      const kind = classifyTransportFailure(outcome.error);
      if (kind !== 'reset' && kind !== 'timeout') return undefined;
      const safe = request.watch || request.method === 'GET' || request.method === 'HEAD';
      if (!safe) return undefined;
      const delayMs = this.backoffMs(retriesSoFar);
      return {
        delayMs,
        pauseMs: 0,
        reason: `retries: ${retry}, retry-after: ${formatSeconds(delayMs)} - retry-reason: due to retryable error, error: ${describeTransportFailure(outcome.error)}`,
      };
    }
    const { statusCode } = outcome;
    if (statusCode !== 429 && statusCode < 500) return undefined;
    const retryAfterSeconds = parseRetryAfter(outcome.retryAfter);
    if (retryAfterSeconds === undefined) return undefined;
    const retryAfterMs = retryAfterSeconds * 1000;
    if (retryAfterMs > this.#maxRetryAfterMs) return undefined;
    const delayMs = Math.max(retryAfterMs, this.backoffMs(retriesSoFar));
    const reason =
      statusCode === 429
        ? `retries: ${retry}, retry-after: ${formatSeconds(retryAfterMs)} - retry-reason: due to server-side throttling, FlowSchema UID: ${JSON.stringify(outcome.flowSchemaUid ?? '')}`
        : `retries: ${retry}, retry-after: ${formatSeconds(retryAfterMs)} - retry-reason: ${statusCode}`;
    return { delayMs, pauseMs: statusCode === 429 ? retryAfterMs : 0, reason };
  }
}
