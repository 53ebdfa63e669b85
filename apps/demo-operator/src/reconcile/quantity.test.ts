import { describe, expect, it } from 'vitest';
import { sameQuantity } from './quantity.js';

describe('sameQuantity', () => {
  // Each pair: what a WebApp may say, and what the API server stores for it.
  it.each([
    ['0.5', '500m'],
    ['.5', '500m'],
    ['1.', '1'],
    ['1000m', '1'],
    ['1024Mi', '1Gi'],
    ['1536Mi', '1536Mi'],
    ['0.5Gi', '512Mi'],
    ['1073741824', '1Gi'],
    [1073741824, '1Gi'],
    [2, '2'],
    ['2000', '2k'],
    ['1e3', '1k'],
    ['1E3', '1k'],
    ['1E', '1E'],
    ['+1', '1'],
    ['0.0000000001', '1n'],
    ['1.0000000001', '1000000001n'],
    ['-0.0000000001', '-1n'],
    ['12e-3', '12m'],
    ['0', '0'],
    ['0m', '0'],
  ])('%s is stored as %s', (written, stored) => {
    expect(sameQuantity(stored, written)).toBe(true);
  });

  it.each([
    ['500m', '0.6'],
    ['1Gi', '1G'],
    ['1k', '1Ki'],
    ['1E', '1'],
    ['1', '-1'],
    ['1m', '1M'],
  ])('%s differs from %s', (live, desired) => {
    expect(sameQuantity(live, desired)).toBe(false);
  });

  it('compares what is not a quantity as it is', () => {
    expect(sameQuantity('lots', 'lots')).toBe(true);
    expect(sameQuantity('lots', 'more')).toBe(false);
    expect(sameQuantity(undefined, '1')).toBe(false);
    expect(sameQuantity('1 ', '1')).toBe(false);
    expect(sameQuantity('1e', '1')).toBe(false);
    expect(sameQuantity({}, '1')).toBe(false);
  });

  it('compares a quantity longer than 128 characters as text, without reading it as a number', () => {
    const long = `1${'0'.repeat(200)}`;
    expect(sameQuantity(long, long)).toBe(true);
    expect(sameQuantity(long, '1e200')).toBe(false);
    expect(sameQuantity('1e200', `${long}.0`)).toBe(false);
    expect(sameQuantity(`1${'0'.repeat(127)}`, '1e127')).toBe(true);
  });
});
