import { FakeClock } from '@k/rest/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
} from './rate-limiters.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

function whens<K>(limiter: { when(key: K): number }, key: K, times: number): number[] {
  return Array.from({ length: times }, () => limiter.when(key));
}

// The tables of client-go's util/workqueue/default_rate_limiters_test.go.
describe('ItemExponentialFailureRateLimiter', () => {
  it('doubles per key from the base delay, counts requeues, and starts over after forget', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(1, SECOND);
    expect(whens(limiter, 'one', 5)).toEqual([1, 2, 4, 8, 16]);
    expect(limiter.numRequeues('one')).toBe(5);
    expect(whens(limiter, 'two', 2)).toEqual([1, 2]);
    expect(limiter.numRequeues('two')).toBe(2);
    limiter.forget('one');
    expect(limiter.numRequeues('one')).toBe(0);
    expect(limiter.when('one')).toBe(1);
  });

  it('caps at the maximum and never overflows', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(1, 1000 * SECOND);
    whens(limiter, 'one', 5);
    expect(limiter.when('one')).toBe(32);
    whens(limiter, 'overflow1', 1000);
    expect(limiter.when('overflow1')).toBe(1000 * SECOND);

    const slow = new ItemExponentialFailureRateLimiter<string>(MINUTE, 1000 * HOUR);
    whens(slow, 'two', 2);
    expect(slow.when('two')).toBe(4 * MINUTE);
    whens(slow, 'overflow2', 1000);
    expect(slow.when('overflow2')).toBe(1000 * HOUR);
  });
});

describe('ItemFastSlowRateLimiter', () => {
  it('waits the fast delay for the first attempts, then the slow one', () => {
    const limiter = new ItemFastSlowRateLimiter<string>(5, 10 * SECOND, 3);
    expect(whens(limiter, 'one', 5)).toEqual([5, 5, 5, 10 * SECOND, 10 * SECOND]);
    expect(limiter.numRequeues('one')).toBe(5);
    expect(whens(limiter, 'two', 2)).toEqual([5, 5]);
    limiter.forget('one');
    expect(limiter.numRequeues('one')).toBe(0);
    expect(limiter.when('one')).toBe(5);
  });
});

describe('MaxOfRateLimiter', () => {
  it('waits the longest delay of its limiters', () => {
    const limiter = new MaxOfRateLimiter<string>(
      new ItemFastSlowRateLimiter(5, 3 * SECOND, 3),
      new ItemExponentialFailureRateLimiter(1, SECOND),
    );
    expect(whens(limiter, 'one', 5)).toEqual([5, 5, 5, 3 * SECOND, 3 * SECOND]);
    expect(limiter.numRequeues('one')).toBe(5);
    expect(whens(limiter, 'two', 2)).toEqual([5, 5]);
    limiter.forget('one');
    expect(limiter.numRequeues('one')).toBe(0);
    expect(limiter.when('one')).toBe(5);
  });
});

describe('BucketRateLimiter', () => {
  it('lets a burst through, then spaces keys at the rate, and refills with time', async () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter<string>(10, 100, clock);
    expect(whens(limiter, 'a', 100).every((delay) => delay === 0)).toBe(true);
    expect(limiter.when('b')).toBeCloseTo(100);
    expect(limiter.when('c')).toBeCloseTo(200);
    // One second repays the debt of 2 tokens and refills 8.
    await clock.advance(SECOND);
    expect(whens(limiter, 'd', 8).every((delay) => delay === 0)).toBe(true);
    expect(limiter.when('e')).toBeCloseTo(100);
    expect(limiter.numRequeues('a')).toBe(0);
  });
});

describe('defaultControllerRateLimiter', () => {
  it('is the longer of 5 ms · 2^n (capped at 1000 s) per key and a 10 qps / 100 burst bucket', () => {
    const limiter = defaultControllerRateLimiter<string>(new FakeClock());
    expect(whens(limiter, 'key', 4)).toEqual([5, 10, 20, 40]);
    expect(limiter.numRequeues('key')).toBe(4);
    whens(limiter, 'flood', 96);
    // The bucket is empty now: the next key waits for a token although it never failed.
    expect(limiter.when('fresh')).toBeCloseTo(100);
    whens(limiter, 'key', 30);
    expect(limiter.when('key')).toBe(1000 * SECOND);
    limiter.forget('key');
    expect(limiter.numRequeues('key')).toBe(0);
  });
});

// Properties over arbitrary sequences of failures and forgets of a few keys, against client-go's
// definitions (util/workqueue/default_rate_limiters.go): a per-key failure count n, reset by Forget.
type LimiterStep = { forget: boolean; key: string };
const limiterSteps = fc.array(
  fc.record({ forget: fc.boolean(), key: fc.constantFrom('a', 'b', 'c') }),
  { maxLength: 60 },
);

function runModel(
  steps: LimiterStep[],
  limiter: {
    when(key: string): number;
    forget(key: string): void;
    numRequeues(key: string): number;
  },
  expected: (failures: number) => number,
): void {
  const failures = new Map<string, number>();
  for (const { forget, key } of steps) {
    if (forget) {
      limiter.forget(key);
      failures.delete(key);
    } else {
      const n = failures.get(key) ?? 0;
      expect(limiter.when(key)).toBe(expected(n));
      failures.set(key, n + 1);
    }
    expect(limiter.numRequeues(key)).toBe(failures.get(key) ?? 0);
  }
}

describe('rate limiter properties (fast-check)', () => {
  it('ItemExponentialFailureRateLimiter waits min(base · 2^n, max) after n failures of the key', () => {
    fc.assert(
      fc.property(
        limiterSteps,
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 10_000_000 }),
        (steps, baseDelayMs, maxDelayMs) => {
          runModel(
            steps,
            new ItemExponentialFailureRateLimiter<string>(baseDelayMs, maxDelayMs),
            (n) => Math.min(baseDelayMs * 2 ** n, maxDelayMs),
          );
        },
      ),
    );
  });

  it('ItemFastSlowRateLimiter waits the fast delay for the first attempts of the key, then the slow one', () => {
    fc.assert(
      fc.property(
        limiterSteps,
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 100, max: 100_000 }),
        fc.integer({ min: 0, max: 5 }),
        (steps, fastDelayMs, slowDelayMs, maxFastAttempts) => {
          runModel(
            steps,
            new ItemFastSlowRateLimiter<string>(fastDelayMs, slowDelayMs, maxFastAttempts),
            (n) => (n + 1 <= maxFastAttempts ? fastDelayMs : slowDelayMs),
          );
        },
      ),
    );
  });

  it('the default controller limiter, with its bucket never empty, is 5 ms · 2^n capped at 1000 s', () => {
    fc.assert(
      fc.property(limiterSteps, (steps) => {
        const clock = new FakeClock();
        const limiter = defaultControllerRateLimiter<string>(clock);
        // 60 calls at most, under the burst of 100: the bucket never adds a wait.
        runModel(steps, limiter, (n) => Math.min(5 * 2 ** n, 1000 * SECOND));
      }),
    );
  });

  it('BucketRateLimiter lets through at most burst + qps · T in any window of T, and waits nothing when spaced at 1/qps', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 80 }),
        async (qps, burst, gapsMs) => {
          const clock = new FakeClock();
          const limiter = new BucketRateLimiter<string>(qps, burst, clock);
          const readyAt: number[] = [];
          for (const gap of gapsMs) {
            await clock.advance(gap);
            const delay = limiter.when('any');
            expect(delay).toBeGreaterThanOrEqual(0);
            readyAt.push(clock.now() + delay);
          }
          // Ready times never go backwards: the bucket hands out its tokens in order.
          for (let index = 1; index < readyAt.length; index += 1) {
            expect(readyAt[index]! + 1e-6).toBeGreaterThanOrEqual(readyAt[index - 1]!);
          }
          // Any window [readyAt[i], readyAt[j]] holds at most burst + qps · its length.
          for (let i = 0; i < readyAt.length; i += 1) {
            for (let j = i; j < readyAt.length; j += 1) {
              const windowSeconds = (readyAt[j]! - readyAt[i]!) / SECOND;
              expect(j - i + 1).toBeLessThanOrEqual(burst + qps * windowSeconds + 1e-6);
            }
          }
          // Spaced at least 1/qps apart, nothing waits.
          const spaced = new BucketRateLimiter<string>(qps, burst, clock);
          for (let index = 0; index < 20; index += 1) {
            expect(spaced.when('any')).toBe(0);
            await clock.advance(Math.ceil(SECOND / qps));
          }
        },
      ),
    );
  });
});
