import { describe, expect, it } from 'vitest';
import { MAX_TIMER_DELAY_MS, timerDelay } from './timer-delay.js';

describe('timerDelay', () => {
  it('passes delays a Node timer holds, and means no timer for 0, Infinity and longer ones', () => {
    expect(timerDelay(1)).toBe(1);
    expect(timerDelay(MAX_TIMER_DELAY_MS)).toBe(MAX_TIMER_DELAY_MS);
    expect(timerDelay(MAX_TIMER_DELAY_MS + 1)).toBeUndefined();
    expect(timerDelay(0)).toBeUndefined();
    expect(timerDelay(Infinity)).toBeUndefined();
  });
});
