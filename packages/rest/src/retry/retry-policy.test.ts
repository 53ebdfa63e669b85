import { describe, expect, it } from 'vitest';
import { RestConfigurationError } from '../errors.js';
import { parseRetryAfter, RetryPolicy, type RetryRequest } from './retry-policy.js';
import { classifyTransportFailure } from './transport-failure.js';

const get: RetryRequest = { method: 'GET', watch: false, replayable: true };
const post: RetryRequest = { method: 'POST', watch: false, replayable: true };

function socketError(code: string): Error {
  return Object.assign(new Error(`socket failure`), { code });
}

const policy = new RetryPolicy({
  initialBackoffMs: 100,
  maxBackoffMs: 1000,
  jitter: 0.5,
  random: () => 0,
});

describe('RetryPolicy decisions', () => {
  it('retries a 429 with Retry-After, pausing its API group (F7)', () => {
    const decision = policy.decide(get, 0, {
      statusCode: 429,
      retryAfter: '2',
      flowSchemaUid: 'fs-1',
    });
    expect(decision).toEqual({
      delayMs: 2000,
      pauseMs: 2000,
      reason:
        'retries: 1, retry-after: 2s - retry-reason: due to server-side throttling, FlowSchema UID: "fs-1"',
    });
  });

  it('retries a 503 with Retry-After without pausing (F8)', () => {
    expect(policy.decide(get, 0, { statusCode: 503, retryAfter: '3' })).toEqual({
      delayMs: 3000,
      pauseMs: 0,
      reason: 'retries: 1, retry-after: 3s - retry-reason: 503',
    });
  });

  it('does not wait for a Retry-After longer than maxRetryAfterMs: the error is returned at once', () => {
    const bounded = new RetryPolicy({ maxRetryAfterMs: 30_000 });
    expect(bounded.decide(get, 0, { statusCode: 429, retryAfter: '30' })?.delayMs).toBe(30_000);
    expect(bounded.decide(get, 0, { statusCode: 429, retryAfter: '31' })).toBeUndefined();
    expect(bounded.decide(get, 0, { statusCode: 503, retryAfter: '3000000' })).toBeUndefined();
    // The default bound: one minute.
    expect(new RetryPolicy().decide(get, 0, { statusCode: 503, retryAfter: '61' })).toBeUndefined();
    expect(
      new RetryPolicy().decide(get, 0, { statusCode: 503, retryAfter: '99999999999999999999999' }),
    ).toBeUndefined();
  });

  it('rejects retry options that are not finite, non-negative numbers', () => {
    for (const options of [
      { maxRetries: Number.NaN },
      { maxRetries: Infinity },
      { maxRetries: '3' as unknown as number },
      { initialBackoffMs: -1 },
      { maxBackoffMs: Number.NaN },
      { maxRetryAfterMs: Infinity },
      { jitter: -0.5 },
    ]) {
      expect(() => new RetryPolicy(options), JSON.stringify(options)).toThrow(
        RestConfigurationError,
      );
    }
    expect(new RetryPolicy({ maxRetries: -3 }).maxRetries).toBe(0);
    expect(new RetryPolicy({ maxRetries: 2.7 }).maxRetries).toBe(2);
  });

  it('does not retry 429 or 5xx without Retry-After, nor other codes (F9)', () => {
    expect(policy.decide(get, 0, { statusCode: 429 })).toBeUndefined();
    expect(policy.decide(get, 0, { statusCode: 503, retryAfter: 'soon' })).toBeUndefined();
    expect(policy.decide(get, 0, { statusCode: 404, retryAfter: '1' })).toBeUndefined();
    expect(policy.decide(get, 0, { statusCode: 409, retryAfter: '1' })).toBeUndefined();
  });

  it('retries 429/500/501/504 with Retry-After for every verb, the server asked for it', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      for (const statusCode of [429, 500, 501, 504]) {
        expect(
          policy.decide({ method, watch: false, replayable: true }, 0, {
            statusCode,
            retryAfter: '0',
          }),
        ).toBeDefined();
      }
    }
  });

  it('waits max(Retry-After, backoff), the backoff doubling up to its cap', () => {
    expect(policy.decide(get, 0, { statusCode: 500, retryAfter: '0' })?.delayMs).toBe(100);
    expect(policy.decide(get, 3, { statusCode: 500, retryAfter: '0' })?.delayMs).toBe(800);
    expect(policy.decide(get, 8, { statusCode: 500, retryAfter: '0' })?.delayMs).toBe(1000);
    expect(policy.decide(get, 8, { statusCode: 500, retryAfter: '5' })?.delayMs).toBe(5000);
    const jittered = new RetryPolicy({ initialBackoffMs: 100, jitter: 0.5, random: () => 0.999 });
    expect(jittered.backoffMs(0)).toBeCloseTo(149.95);
  });

  it('retries resets, truncated bodies and socket timeouts only for GET, HEAD and watches', () => {
    for (const code of [
      'ECONNRESET',
      'UND_ERR_SOCKET',
      'EPIPE',
      'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
      'UND_ERR_HEADERS_TIMEOUT',
      'UND_ERR_BODY_TIMEOUT',
    ]) {
      const outcome = { error: socketError(code) };
      expect(policy.decide(get, 0, outcome), code).toBeDefined();
      expect(policy.decide({ ...get, method: 'HEAD' }, 0, outcome), code).toBeDefined();
      expect(policy.decide({ ...get, watch: true }, 0, outcome), code).toBeDefined();
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
        expect(policy.decide({ ...post, method }, 0, outcome), `${method} ${code}`).toBeUndefined();
      }
    }
    const decision = policy.decide(get, 0, { error: socketError('ECONNRESET') });
    expect(decision?.reason).toBe(
      'retries: 1, retry-after: 0.1s - retry-reason: due to retryable error, error: socket failure (ECONNRESET)',
    );
  });

  it('never retries connection refused, DNS, TLS or our own abort (F10, F11)', () => {
    for (const code of [
      'ECONNREFUSED',
      'ENOTFOUND',
      'UND_ERR_ABORTED',
      'ERR_TLS_CERT_ALTNAME_INVALID',
    ]) {
      expect(policy.decide(get, 0, { error: socketError(code) }), code).toBeUndefined();
    }
    expect(policy.decide(post, 0, { error: socketError('ECONNRESET') })).toBeUndefined();
  });

  it('never retries a request whose body was a stream', () => {
    expect(
      policy.decide({ ...post, replayable: false }, 0, { statusCode: 429, retryAfter: '1' }),
    ).toBeUndefined();
  });

  it('stops after maxRetries (default 10), which a request may override', () => {
    const defaults = new RetryPolicy();
    expect(defaults.maxRetries).toBe(10);
    const outcome = { statusCode: 429, retryAfter: '0' };
    expect(defaults.decide(get, 9, outcome)).toBeDefined();
    expect(defaults.decide(get, 10, outcome)).toBeUndefined();
    expect(defaults.decide(get, 0, outcome, 0)).toBeUndefined();
    expect(RetryPolicy.never().decide(get, 0, outcome)).toBeUndefined();
    expect(new RetryPolicy({ maxRetries: -3 }).maxRetries).toBe(0);
  });
});

describe('parseRetryAfter', () => {
  it('reads integer seconds only, as strconv.Atoi', () => {
    expect(parseRetryAfter('5')).toBe(5);
    expect(parseRetryAfter(' 7 ')).toBe(7);
    expect(parseRetryAfter('-1')).toBe(0);
    expect(parseRetryAfter(['3', '4'])).toBe(3);
    expect(parseRetryAfter('1.5')).toBeUndefined();
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});

describe('classifyTransportFailure', () => {
  it('looks through cause chains', () => {
    const wrapped = new TypeError('fetch failed', { cause: socketError('ECONNREFUSED') });
    expect(classifyTransportFailure(wrapped)).toBe('unsent');
    expect(classifyTransportFailure(new DOMException('aborted', 'AbortError'))).toBe('aborted');
    expect(classifyTransportFailure('nonsense')).toBe('other');
  });
});
