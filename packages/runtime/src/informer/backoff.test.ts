import { FakeClock } from '@k/rest/testing';
import { describe, expect, it } from 'vitest';
import { ExponentialBackoff } from './backoff.js';

describe('ExponentialBackoff (the reflector backoff)', () => {
  it('doubles from 800 ms to a 30 s cap and starts over after 2 minutes without a step', async () => {
    const clock = new FakeClock();
    const backoff = new ExponentialBackoff({ clock, random: () => 0 });
    const delays = Array.from({ length: 8 }, () => backoff.next());
    expect(delays).toEqual([800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000]);
    await clock.advance(2 * 60_000);
    expect(backoff.next()).toBe(30_000); // exactly 2 minutes: not yet
    await clock.advance(2 * 60_000 + 1);
    expect(backoff.next()).toBe(800);
  });

  it('adds up to 100 % jitter', () => {
    const high = new ExponentialBackoff({ clock: new FakeClock(), random: () => 0.999 });
    expect(high.next()).toBeCloseTo(1599.2);
    const half = new ExponentialBackoff({ clock: new FakeClock(), random: () => 0.5 });
    half.next();
    expect(half.next()).toBe(2400);
  });
});
