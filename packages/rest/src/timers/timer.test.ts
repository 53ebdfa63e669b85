import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_DELAY_MS, startTimer } from './timer.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('startTimer', () => {
  it('fires once after a delay longer than Node takes, not after 1 ms', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const fired = vi.fn();
    startTimer(fired, MAX_TIMER_DELAY_MS * 3 + 5, true);
    vi.advanceTimersByTime(MAX_TIMER_DELAY_MS * 3);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(5);
    expect(fired).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(MAX_TIMER_DELAY_MS * 2);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it('can be cancelled in any link of the chain', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const fired = vi.fn();
    const timer = startTimer(fired, MAX_TIMER_DELAY_MS + 10, false);
    vi.advanceTimersByTime(MAX_TIMER_DELAY_MS);
    timer.cancel();
    vi.advanceTimersByTime(MAX_TIMER_DELAY_MS);
    expect(fired).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('fires short and negative delays like setTimeout', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const fired = vi.fn();
    startTimer(fired, 10, true);
    startTimer(fired, -5, true);
    vi.advanceTimersByTime(0);
    expect(fired).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10);
    expect(fired).toHaveBeenCalledTimes(2);
  });

  it('emits no TimeoutOverflowWarning with real timers', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const fired = vi.fn();
      const timer = startTimer(fired, 1000 * 60 * 60 * 1000, false);
      await new Promise((resolve) => setTimeout(resolve, 30));
      timer.cancel();
      expect(fired).not.toHaveBeenCalled();
      expect(warnings).not.toContain('TimeoutOverflowWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });
});
