import { describe, expect, it } from 'vitest';
import { ConfigArgumentError, KubeconfigError } from '../errors.js';
import { parseTimeout } from './parse-timeout.js';

function failure(run: () => unknown): KubeconfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof KubeconfigError) return error;
    throw error;
  }
  expect.fail('expected a KubeconfigError');
}

/** Go's largest time.Duration, 2^63 − 1 ns, rounded up to whole milliseconds. */
const LONGEST_MS = 9_223_372_036_855;

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

  it('gives the exact milliseconds of long durations', () => {
    expect(parseTimeout('1000h')).toBe(3_600_000_000);
    expect(parseTimeout('2562047h')).toBe(9_223_369_200_000);
    expect(parseTimeout('9223372036')).toBe(9_223_372_036_000); // the most seconds Go can hold
    expect(parseTimeout('2562047h47m16.854775807s')).toBe(LONGEST_MS);
    expect(parseTimeout('9223372036854775807ns')).toBe(LONGEST_MS);
  });

  it('reads the forms kubectl accepts, as Go does', () => {
    expect(parseTimeout('+5')).toBe(5000); // strconv.ParseInt takes a sign
    expect(parseTimeout('007')).toBe(7000);
    expect(parseTimeout('-0')).toBe(0);
    expect(parseTimeout('-0s')).toBe(0);
    expect(parseTimeout('+1s')).toBe(1000);
    expect(parseTimeout('.5s')).toBe(500);
    expect(parseTimeout('5.s')).toBe(5000);
    expect(parseTimeout('1h1h')).toBe(7_200_000);
    expect(parseTimeout('1.1s')).toBe(1100);
    expect(parseTimeout('0.3s')).toBe(300);
    expect(parseTimeout('1µs')).toBe(1); // U+00B5
    expect(parseTimeout('1μs')).toBe(1); // U+03BC
  });

  it('rounds sub-millisecond parts up, so a nonzero timeout never becomes 0 (none)', () => {
    expect(parseTimeout('1ns')).toBe(1);
    expect(parseTimeout('1us')).toBe(1);
    expect(parseTimeout('1.000001ms')).toBe(2);
    expect(parseTimeout('1.0000001ms')).toBe(1); // Go drops the 0.1 ns
    expect(parseTimeout('999999ns')).toBe(1);
    expect(parseTimeout('1000000ns')).toBe(1);
    expect(Number.isInteger(parseTimeout('1h0.1ns'))).toBe(true);
  });

  it('rejects what kubectl rejects, naming the flag', () => {
    for (const value of ['', 'abc', '-5', '5x', '1m30', '1e400h', '1e3s', 'NaN', 'inf', ' 5']) {
      const error = failure(() => parseTimeout(value));
      expect(error.code, value).toBe('ERR_CONFIG_INVALID');
      expect(error.message, value).toMatch(/^invalid --request-timeout: timeout must be a single/);
    }
    for (const value of ['0x10', '1_000', '1s1', '.s', '1..5s', '5.', '9223372036854775808']) {
      expect(() => parseTimeout(value), value).toThrow(/^invalid --request-timeout: /);
    }
  });

  it("rejects durations beyond Go's int64 nanoseconds", () => {
    // kubectl refuses the first three; it multiplies the last, seconds, and wraps around.
    for (const value of [
      '2562048h',
      '2562047h47m16.854775808s',
      '100000000000000000000000h',
      '9223372037',
      '9223372036854775807',
    ]) {
      const error = failure(() => parseTimeout(value));
      expect(error.code, value).toBe('ERR_CONFIG_INVALID');
      expect(error.message, value).toBe(
        'invalid --request-timeout: longer than the longest duration, 2562047h47m16.854775807s',
      );
    }
  });

  it('rejects negative durations, which kubectl would quietly treat as none', () => {
    for (const value of ['-1s', '-1ns', '-1h30m']) {
      expect(failure(() => parseTimeout(value)).message, value).toBe(
        'invalid --request-timeout: a timeout cannot be negative (0 means none)',
      );
    }
  });

  it('names the field it was given and never echoes the value', () => {
    const error = failure(() => parseTimeout('s3cr3t', 'requestTimeout'));
    expect(error.message).toMatch(/^invalid requestTimeout: /);
    expect(error.message).not.toContain('s3cr3t');
  });

  it('rejects a value that is not a string, as a plain JavaScript caller may pass', () => {
    const values: unknown[] = [5, Number.NaN, undefined, null, {}];
    for (const value of values) {
      expect(() => parseTimeout(value as string)).toThrow(ConfigArgumentError);
      expect(() => parseTimeout(value as string)).toThrow(/^parseTimeout: value must be a string/);
    }
  });
});
