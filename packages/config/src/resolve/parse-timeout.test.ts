import { describe, expect, it } from 'vitest';
import { KubeconfigError } from '../errors.js';
import { parseTimeout } from './parse-timeout.js';

describe('parseTimeout', () => {
  it('reads bare integers as seconds and Go durations otherwise', () => {
    expect(parseTimeout('5')).toBe(5000);
    expect(parseTimeout('0')).toBe(0);
    expect(parseTimeout('1m')).toBe(60_000);
    expect(parseTimeout('3h')).toBe(10_800_000);
    expect(parseTimeout('1m30s')).toBe(90_000);
    expect(parseTimeout('500ms')).toBe(500);
    expect(parseTimeout('1.5s')).toBe(1500);
  });

  it('rejects anything else with a typed error', () => {
    for (const value of ['', 'abc', '-5', '5x', '1m30', '-1s']) {
      expect(() => parseTimeout(value), value).toThrow(KubeconfigError);
    }
  });
});
