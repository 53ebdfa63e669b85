import { describe, expect, it } from 'vitest';
import { formatDuration, formatProgress } from './progress.js';

describe('formatDuration', () => {
  it('picks a unit a person reads at a glance', () => {
    expect(formatDuration(850)).toBe('850ms');
    expect(formatDuration(12_340)).toBe('12.3s');
    expect(formatDuration(245_000)).toBe('4m05s');
  });
});

describe('formatProgress', () => {
  it('names the step and, after it started, the elapsed time', () => {
    expect(
      formatProgress({ kind: 'start', step: 'go mod tidy', elapsedMs: 0, message: 'started' }),
    ).toBe('[k-testenv] go mod tidy: started');
    expect(
      formatProgress({
        kind: 'heartbeat',
        step: 'go build',
        elapsedMs: 60_000,
        message: 'still running',
      }),
    ).toBe('[k-testenv] go build: still running (1m00s)');
  });
});
