import { FakeClock } from '@k/rest/testing';
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
