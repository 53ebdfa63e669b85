import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareQuantities, sameQuantity } from './quantity.js';

/**
 * What apimachinery v0.37.2's `resource.ParseQuantity` made of each input, recorded by
 * `__fixtures__/quantities/main.go` (`go run .` there): its canonical text (what the API server
 * stores) or null when it refused the input, and the rank of its value among all inputs.
 */
interface RecordedQuantity {
  input: string;
  canonical: string | null;
  rank: number | null;
}

const recorded = JSON.parse(
  readFileSync(new URL('__fixtures__/quantities/quantities.json', import.meta.url), 'utf8'),
) as RecordedQuantity[];

const MAX_INT64 = 2n ** 63n - 1n;
const NANOS = 1_000_000_000n;
const DECIMAL_POWERS: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY_POWERS: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

/**
 * referenceNanos is the value of `text` in billionths, computed another way than quantity.ts
 * does: a regular expression for the grammar of apimachinery's doc comment and scanner, then
 * exact fractions of BigInts, rounded up away from zero, binary ones capped at 2⁶³−1.
 * Undefined when apimachinery refuses `text` or its exponent is past ±400 (kept cheap here).
 */
function referenceNanos(text: string): bigint | undefined {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?([eEinumkKMGTP]*[+-]?\d*)$/.exec(text);
  if (text === '' || !match) return undefined;
  const [, sign, whole = '', fraction = '', suffix = ''] = match;
  let numerator = BigInt(`0${whole}${fraction}`);
  let denominator = 10n ** BigInt(fraction.length);
  let power: number;
  const binary = Object.hasOwn(BINARY_POWERS, suffix);
  if (Object.hasOwn(DECIMAL_POWERS, suffix)) power = DECIMAL_POWERS[suffix]!;
  else if (binary) {
    numerator *= 2n ** BigInt(BINARY_POWERS[suffix]!);
    power = 0;
  } else if (/^[eE][+-]?\d+$/.test(suffix)) power = Number(suffix.slice(1));
  else return undefined;
  if (Math.abs(power) > 400) return undefined;
  // Without a digit apimachinery's arbitrary-precision path (`inf.Dec`) fails: it takes that
  // path below a billionth and for the two largest binary suffixes.
  const exact = binary ? BINARY_POWERS[suffix]! < 50 : power >= -9;
  if (whole === '' && fraction === '' && !exact) return undefined;
  if (power >= 0) numerator *= 10n ** BigInt(power);
  else denominator *= 10n ** BigInt(-power);
  let nanos = (numerator * NANOS + denominator - 1n) / denominator;
  if (binary && nanos > MAX_INT64 * NANOS) nanos = MAX_INT64 * NANOS;
  return sign === '-' ? -nanos : nanos;
}

/** decimalText writes `units` / 10^`places` exactly (`decimalText(1500n, 3)` is `1.500`). */
function decimalText(units: bigint, places: number): string {
  const sign = units < 0n ? '-' : '';
  const digits = (units < 0n ? -units : units).toString();
  if (places <= 0) return `${sign}${digits}${'0'.repeat(-places)}`;
  const padded = digits.padStart(places + 1, '0');
  return `${sign}${padded.slice(0, -places)}.${padded.slice(-places)}`;
}

/** writings are ways to write the quantity of `nanos` billionths exactly, in every notation. */
function writings(nanos: bigint): string[] {
  const texts = Object.entries(DECIMAL_POWERS).map(
    ([suffix, power]) => `${decimalText(nanos, 9 + power)}${suffix}`,
  );
  for (const exponent of [-12, -9, -1, 0, 2, 21]) {
    texts.push(`${decimalText(nanos, 9 + exponent)}e${exponent}`);
  }
  // value / 2^k = nanos · 5^k / 10^(9+k): every binary writing is a finite decimal.
  for (const [suffix, power] of Object.entries(BINARY_POWERS)) {
    texts.push(`${decimalText(nanos * 5n ** BigInt(power), 9 + power)}${suffix}`);
  }
  return texts;
}

describe('sameQuantity', () => {
  // Each pair: what a desired object may say, and what the API server stores for it.
  it.each([
    ['0.5', '500m'],
    ['.5', '500m'],
    ['1.', '1'],
    ['1.G', '1G'],
    ['1000m', '1'],
    ['1024Mi', '1Gi'],
    ['1536Mi', '1536Mi'],
    ['0.5Gi', '512Mi'],
    ['0.1Ki', '102400m'],
    ['1073741824', '1Gi'],
    [1073741824, '1Gi'],
    [0.5, '500m'],
    [2, '2'],
    [1e21, '1e21'],
    ['2000', '2k'],
    ['1e3', '1k'],
    ['1E3', '1k'],
    ['1E', '1E'],
    ['+1', '1'],
    ['0.0000000001', '1n'],
    ['0.4n', '1n'],
    ['1.0000000001', '1000000001n'],
    ['-0.0000000001', '-1n'],
    ['12e-3', '12m'],
    ['0', '0'],
    ['0m', '0'],
    ['-', '0'],
    ['9Ei', '9223372036854775807'],
    ['16Ei', '8Ei'],
  ])('%s is stored as %s', (written, stored) => {
    expect(sameQuantity(stored, written)).toBe(true);
    expect(sameQuantity(written, stored)).toBe(true);
  });

  it.each([
    ['500m', '0.6'],
    ['1Gi', '1G'],
    ['1k', '1Ki'],
    ['1E', '1'],
    ['1', '-1'],
    ['1m', '1M'],
    ['1e19', '9223372036854775807'],
    ['7Ei', '8Ei'],
  ])('%s differs from %s', (live, desired) => {
    expect(sameQuantity(live, desired)).toBe(false);
  });

  it('compares what is not a quantity as it is', () => {
    expect(sameQuantity('lots', 'lots')).toBe(true);
    expect(sameQuantity('lots', 'more')).toBe(false);
    expect(sameQuantity(undefined, '1')).toBe(false);
    expect(sameQuantity(null, '0')).toBe(false);
    expect(sameQuantity('1 ', '1')).toBe(false);
    expect(sameQuantity(' 1', '1')).toBe(false);
    expect(sameQuantity('1e', '1')).toBe(false);
    expect(sameQuantity('1ki', '1Ki')).toBe(false);
    expect(sameQuantity({}, '1')).toBe(false);
    expect(sameQuantity(Number.NaN, Number.NaN)).toBe(false);
    expect(sameQuantity(Number.POSITIVE_INFINITY, '1e400')).toBe(false);
  });

  it('compares a quantity longer than 128 characters as text, without reading it as a number', () => {
    const long = `1${'0'.repeat(200)}`;
    expect(sameQuantity(long, long)).toBe(true);
    expect(sameQuantity(long, '1e200')).toBe(false);
    expect(sameQuantity('1e200', `${long}.0`)).toBe(false);
    expect(sameQuantity(`1${'0'.repeat(127)}`, '1e127')).toBe(true);
    // A million digits: refused at once by its length.
    expect(sameQuantity(`${'9'.repeat(1_000_000)}Ki`, '1Ki')).toBe(false);
  });

  it('reads huge and tiny exponents without expanding them, and refuses those past ±10⁹', () => {
    expect(sameQuantity('1e999999999', '10e999999998')).toBe(true);
    expect(sameQuantity('1e999999999', '1e999999998')).toBe(false);
    expect(sameQuantity('1e-999999999', '1n')).toBe(true);
    // apimachinery truncates this exponent to 32 bits (it stores 1): compared as text here.
    expect(sameQuantity('1e4294967296', '1')).toBe(false);
    expect(compareQuantities('1e1000000001', '1')).toBeUndefined();
  });
});

describe('compareQuantities', () => {
  it('orders by value, negative below zero', () => {
    expect(compareQuantities('500m', '1')).toBeLessThan(0);
    expect(compareQuantities('1Gi', '1G')).toBeGreaterThan(0);
    expect(compareQuantities('-1Ki', '-1k')).toBeLessThan(0);
    expect(compareQuantities('1e999999999', '1E')).toBeGreaterThan(0);
    expect(compareQuantities(1024, '1Ki')).toBe(0);
    expect(compareQuantities('lots', '1')).toBeUndefined();
  });

  it('agrees with apimachinery on every recorded input: what parses, what the server stores, the order', () => {
    const parsed = recorded.filter((entry) => entry.canonical !== null);
    expect(parsed.length).toBeGreaterThan(1000);
    for (const entry of recorded) {
      if (entry.canonical === null) {
        expect(compareQuantities(entry.input, '0'), entry.input).toBeUndefined();
      } else {
        expect(compareQuantities(entry.input, entry.canonical), entry.input).toBe(0);
      }
    }
    // Sorted by compareQuantities, apimachinery's ranks must not go down, and equal neighbours
    // must have equal ranks: the two orders are the same.
    const sorted = [...parsed].sort((a, b) => compareQuantities(a.input, b.input)!);
    for (let index = 1; index < sorted.length; index++) {
      const [before, after] = [sorted[index - 1]!, sorted[index]!];
      const order = compareQuantities(before.input, after.input);
      const pair = `${before.input} / ${after.input}`;
      expect(before.rank! <= after.rank!, pair).toBe(true);
      expect(order === 0, pair).toBe(before.rank === after.rank);
    }
  });

  it('agrees with an exact-fraction reference on any text of the grammar’s characters (fast-check)', () => {
    const character = fc.constantFrom(...'0123456789.+-eEinumkKMGTP');
    const text = fc.oneof(
      fc.string({ unit: character, minLength: 1, maxLength: 3 }),
      fc.string({ unit: character, minLength: 1, maxLength: 10 }),
    );
    fc.assert(
      fc.property(text, text, (left, right) => {
        const [leftNanos, rightNanos] = [referenceNanos(left), referenceNanos(right)];
        fc.pre(!/[eE][+-]?\d{3,}$/.test(left) && !/[eE][+-]?\d{3,}$/.test(right));
        const order = compareQuantities(left, right);
        if (leftNanos === undefined || rightNanos === undefined) {
          expect(order).toBeUndefined();
        } else {
          expect(Math.sign(order!)).toBe(
            leftNanos === rightNanos ? 0 : leftNanos < rightNanos ? -1 : 1,
          );
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('finds every writing of one value equal, and a billionth more greater (fast-check)', () => {
    const nanos = fc.bigInt({ min: -(10n ** 27n), max: 10n ** 27n });
    fc.assert(
      fc.property(nanos, fc.nat(), fc.nat(), (value, first, second) => {
        const texts = writings(value);
        const [left, right] = [texts[first % texts.length]!, texts[second % texts.length]!];
        expect(referenceNanos(left)).toBe(value);
        expect(sameQuantity(left, right)).toBe(true);
        const above = writings(value + 1n)[second % texts.length]!;
        expect(compareQuantities(left, above)).toBeLessThan(0);
        expect(sameQuantity(left, above)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});
