import { describe, expect, it } from 'vitest';
import { RestConfigurationError } from '../errors.js';
import { FakeClock } from '../testing/fake-clock.js';
import { TokenBucket } from './token-bucket.js';

function acquireAll(bucket: TokenBucket, count: number, order: number[] = []): Promise<void>[] {
  const results: Promise<void>[] = [];
  for (let index = 0; index < count; index += 1) {
    const pending = bucket.acquire();
    results.push((pending ?? Promise.resolve()).then(() => void order.push(index)));
  }
  return results;
}

describe('TokenBucket (fake clock)', () => {
  it('starts full with burst tokens, then refills at qps (client-go TestBasicThrottle)', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: 1, burst: 3, clock });
    expect([bucket.tryAcquire(), bucket.tryAcquire(), bucket.tryAcquire()]).toEqual([
      true,
      true,
      true,
    ]);
    expect(bucket.tryAcquire()).toBe(false);
    await clock.advance(999);
    expect(bucket.tryAcquire()).toBe(false);
    await clock.advance(1);
    expect(bucket.tryAcquire()).toBe(true);
    await clock.advance(60_000);
    expect([
      bucket.tryAcquire(),
      bucket.tryAcquire(),
      bucket.tryAcquire(),
      bucket.tryAcquire(),
    ]).toEqual([true, true, true, false]);
  });

  it('makes 16 acquires at qps 10 burst 5 take 1.1 s, in FIFO order (client-go TestThrottle)', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: 10, burst: 5, clock });
    const order: number[] = [];
    const all = Promise.all(acquireAll(bucket, 16, order));
    await clock.advance(0);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    await clock.advance(1099);
    expect(order).toHaveLength(15);
    await clock.advance(1);
    await all;
    expect(order).toEqual([...Array(16).keys()]);
    expect(clock.now()).toBe(1100);
  });

  it('uses client-go defaults: qps 5, burst 10', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ clock });
    expect([bucket.qps, bucket.burst]).toEqual([5, 10]);
    const zero = new TokenBucket({ qps: 0, burst: 0, clock });
    expect([zero.qps, zero.burst]).toEqual([5, 10]);
    for (let index = 0; index < 10; index += 1) expect(bucket.tryAcquire()).toBe(true);
    expect(bucket.tryAcquire()).toBe(false);
    await clock.advance(200);
    expect(bucket.tryAcquire()).toBe(true);
  });

  it('returns undefined (no promise) on the fast path', () => {
    const bucket = new TokenBucket({ clock: new FakeClock() });
    expect(bucket.acquire()).toBeUndefined();
  });

  it('gives up the place of an aborted waiter and rejects with the signal reason', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: 1, burst: 1, clock });
    expect(bucket.acquire()).toBeUndefined();
    const controller = new AbortController();
    const first = bucket.acquire(controller.signal)!;
    const second = bucket.acquire()!;
    expect(bucket.waiting).toBe(2);
    const reason = new Error('caller gave up');
    controller.abort(reason);
    await expect(first).rejects.toBe(reason);
    expect(bucket.waiting).toBe(1);
    let secondDone = false;
    void second.then(() => (secondDone = true));
    await clock.advance(1000);
    expect(secondDone).toBe(true);
    const aborted = AbortSignal.abort(reason);
    expect(bucket.tryAcquire()).toBe(false);
    await expect(bucket.acquire(aborted)!).rejects.toBe(reason);
  });

  it('has an unlimited mode', () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: -1, clock });
    for (let index = 0; index < 1000; index += 1) expect(bucket.acquire()).toBeUndefined();
    expect(TokenBucket.unlimited(clock).acquire()).toBeUndefined();
  });

  it('waits for a token at a tiny rate without a timer overflow', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      // One token per 2^32 seconds: the wait is far longer than Node's longest timer.
      const bucket = new TokenBucket({ qps: 2 ** -32, burst: 1 });
      expect(bucket.tryAcquire()).toBe(true);
      const controller = new AbortController();
      const waiting = bucket.acquire(controller.signal)!;
      let settled = false;
      void waiting.then(
        () => (settled = true),
        () => (settled = true),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(settled).toBe(false);
      controller.abort(new Error('done waiting'));
      await expect(waiting).rejects.toThrow('done waiting');
      expect(warnings.map((warning) => warning.name)).not.toContain('TimeoutOverflowWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('rejects an invalid burst', () => {
    expect(() => new TokenBucket({ qps: 5, burst: -1 })).toThrow(RestConfigurationError);
  });
});
