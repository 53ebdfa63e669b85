import { checkString, fail } from '../argument-checks.js';

import { KubeconfigError } from '../errors.js';

/** The largest Go time.Duration: 2^63 − 1 nanoseconds. */
const MAX_DURATION_NS = 2n ** 63n - 1n;
const NS_PER_MS = 1_000_000n;
const NS_PER_SECOND = 1_000_000_000n;

const UNIT_NANOSECONDS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1000n,
  µs: 1000n, // U+00B5 micro sign
  μs: 1000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: NS_PER_SECOND,
  m: 60n * NS_PER_SECOND,
  h: 3600n * NS_PER_SECOND,
};

const INVALID =
  'timeout must be a single integer in seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)';
const TOO_LONG = 'longer than the longest duration, 2562047h47m16.854775807s';
const NEGATIVE = 'a timeout cannot be negative (0 means none)';

/**
 * parseTimeout reads kubectl's `--request-timeout` as client-go's ParseTimeout does: a bare
 * integer (optionally signed, base 10) is seconds, anything else is a Go duration
 * (`time.ParseDuration`: `1m30s`, `500ms`, `1.5h`, units ns us µs μs ms s m h). Returns whole
 * milliseconds, computed exactly from the nanoseconds and rounded up, so that a nonzero
 * duration never becomes 0; 0 means no timeout. The result is at most 9 223 372 036 855 (Go's
 * longest duration) and is often beyond the 2^31 − 1 ms one Node.js timer can wait.
 *
 * Throws a {@link KubeconfigError} `ERR_CONFIG_INVALID` whose message names `name` (the flag
 * or field, default `--request-timeout`) but not the value: for a value that is not a string,
 * that Go cannot parse, that is longer than Go's int64 nanoseconds (kubectl refuses such
 * durations, and wraps such integers around), or that is negative (kubectl would quietly send
 * no timeout at all).
 */
export function parseTimeout(value: string, name = '--request-timeout'): number {
  checkString('parseTimeout', 'name', name);
  if (typeof value !== 'string') {
    fail('parseTimeout', 'value', 'a string such as "30" (seconds) or "1m30s"', value);
  }
  const nanoseconds = /^[-+]?\d+$/.test(value)
    ? integerSeconds(value, name)
    : parseGoDuration(value, name);
  if (nanoseconds < 0n) throw invalid(name, NEGATIVE);
  return Number((nanoseconds + NS_PER_MS - 1n) / NS_PER_MS);
}

/** integerSeconds applies strconv.ParseInt(value, 10, 64) and time.Second's multiplication. */
function integerSeconds(value: string, name: string): bigint {
  if (value.replace(/^[-+]?0*/, '').length > 20) throw invalid(name, INVALID);
  const seconds = BigInt(value);
  // ParseInt refuses what int64 cannot hold, and client-go then tries ParseDuration, which
  // refuses a number without a unit; a negative count of seconds takes the same way.
  if (seconds > MAX_DURATION_NS || seconds < -MAX_DURATION_NS - 1n) throw invalid(name, INVALID);
  if (seconds < 0n) throw invalid(name, INVALID);
  const nanoseconds = seconds * NS_PER_SECOND;
  if (nanoseconds > MAX_DURATION_NS) throw invalid(name, TOO_LONG);
  return nanoseconds;
}

/**
 * parseGoDuration is Go's time.ParseDuration, `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+`, with its
 * overflow checks and its float64 arithmetic for fractions, so the same text gives the same
 * nanoseconds.
 */
function parseGoDuration(text: string, name: string): bigint {
  let rest = text;
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  if (rest === '0') return 0n;
  if (rest === '') throw invalid(name, INVALID);
  let total = 0n;
  while (rest !== '') {
    if (!/^[0-9.]/.test(rest)) throw invalid(name, INVALID);
    const whole = /^[0-9]*/.exec(rest)?.[0] ?? '';
    rest = rest.slice(whole.length);
    let fraction = '';
    let hasFraction = false;
    if (rest.startsWith('.')) {
      fraction = /^\.([0-9]*)/.exec(rest)?.[1] ?? '';
      rest = rest.slice(1 + fraction.length);
      hasFraction = fraction !== '';
    }
    if (whole === '' && !hasFraction) throw invalid(name, INVALID);
    const unitText = /^[^0-9.]*/.exec(rest)?.[0] ?? '';
    rest = rest.slice(unitText.length);
    const unit = UNIT_NANOSECONDS[unitText];
    if (unitText === '' || unit === undefined) throw invalid(name, INVALID);
    // Go's leadingInt fails past 2^63; the product may not pass it either.
    // More than 20 significant digits overflow; checking first keeps BigInt off huge strings.
    if (whole.replace(/^0+/, '').length > 20) throw invalid(name, TOO_LONG);
    const amount = whole === '' ? 0n : BigInt(whole);
    if (amount > 2n ** 63n || amount > 2n ** 63n / unit) throw invalid(name, TOO_LONG);
    let part = amount * unit;
    if (hasFraction) {
      const [digits, scale] = leadingFraction(fraction);
      part += BigInt(Math.trunc(Number(digits) * (Number(unit) / scale)));
      if (part > 2n ** 63n) throw invalid(name, TOO_LONG);
    }
    total += part;
    if (total > 2n ** 63n) throw invalid(name, TOO_LONG);
  }
  if (negative) return -total;
  if (total > MAX_DURATION_NS) throw invalid(name, TOO_LONG);
  return total;
}

/** leadingFraction is Go's: digits until they would overflow, the rest ignored; scale is 10^n. */
function leadingFraction(digits: string): [bigint, number] {
  let value = 0n;
  let scale = 1;
  for (const digit of digits) {
    if (value > (2n ** 63n - 1n) / 10n) break;
    const next = value * 10n + BigInt(digit);
    if (next > 2n ** 63n) break;
    value = next;
    scale *= 10;
  }
  return [value, scale];
}

function invalid(name: string, problem: string): KubeconfigError {
  return new KubeconfigError('ERR_CONFIG_INVALID', `invalid ${name}: ${problem}`);
}
