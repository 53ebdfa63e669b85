/**
 * A quantity's value, exact: `digits` × 10^`exponent`, negative or not. `digits` has no leading
 * and no trailing zeros (`''` is zero, never negative), so two values are equal exactly when
 * their three fields are. No power of ten is ever expanded: `1e999999999` costs what `1` does.
 */
interface QuantityValue {
  readonly negative: boolean;
  readonly digits: string;
  readonly exponent: number;
}

const ZERO: QuantityValue = { negative: false, digits: '', exponent: 0 };

/** The value apimachinery caps a binary-suffixed quantity at: the largest int64. */
const MAX_BINARY: QuantityValue = { negative: false, digits: '9223372036854775807', exponent: 0 };

/** The decimal SI suffixes and their powers of ten (`''`: no suffix). */
const DECIMAL_SUFFIXES = new Map<string, number>([
  ['n', -9],
  ['u', -6],
  ['m', -3],
  ['', 0],
  ['k', 3],
  ['M', 6],
  ['G', 9],
  ['T', 12],
  ['P', 15],
  ['E', 18],
]);

/** The binary SI suffixes and their powers of two. */
const BINARY_SUFFIXES = new Map<string, number>([
  ['Ki', 10],
  ['Mi', 20],
  ['Gi', 30],
  ['Ti', 40],
  ['Pi', 50],
  ['Ei', 60],
]);

/** The letters apimachinery's scanner takes into a suffix. */
const SUFFIX_LETTERS = 'eEinumkKMGTP';

/**
 * MAX_QUANTITY_LENGTH bounds the text read as a number. A quantity is often a tenant's string
 * (a custom resource's `memory`, bounded by its schema's pattern at best), and a binary suffix
 * multiplies its digits as a BigInt, which grows faster than the text: a million digits took
 * 0.2 s. What the API server stores for any quantity is at most a few dozen characters (its
 * canonical form), so a longer text is never equal in value to what is stored unless it is
 * the same text; compared as text, it costs at worst one apply that changes nothing.
 */
const MAX_QUANTITY_LENGTH = 128;

/**
 * MAX_EXPONENT bounds the power of ten of an exponent (`1e…`). apimachinery reads it as an
 * int64 and truncates it to 32 bits (`1e4294967296` is 1 there); below ±10⁹ nothing is
 * truncated, and no real quantity comes near.
 */
const MAX_EXPONENT = 1_000_000_000;

function isDigit(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return code >= 48 && code <= 57;
}

/** normalized strips the zeros of `digits` (a run of decimal digits) into the exponent. */
function normalized(negative: boolean, digits: string, exponent: number): QuantityValue {
  let start = 0;
  while (start < digits.length && digits[start] === '0') start++;
  let end = digits.length;
  while (end > start && digits[end - 1] === '0') end--;
  if (start === end) return ZERO;
  return { negative, digits: digits.slice(start, end), exponent: exponent + digits.length - end };
}

/** incremented adds one to a run of decimal digits (`'199'` → `'200'`, `'99'` → `'100'`). */
function incremented(digits: string): string {
  let index = digits.length - 1;
  while (index >= 0 && digits[index] === '9') index--;
  if (index < 0) return `1${'0'.repeat(digits.length)}`;
  const next = String.fromCharCode(digits.charCodeAt(index) + 1);
  return `${digits.slice(0, index)}${next}${'0'.repeat(digits.length - index - 1)}`;
}

/**
 * roundedToNanos rounds a value finer than a billionth up, away from zero, to the next
 * billionth, as ParseQuantity does ("if you want some resources, you should get some").
 */
function roundedToNanos(value: QuantityValue): QuantityValue {
  if (value.digits === '' || value.exponent >= -9) return value;
  const dropped = -9 - value.exponent;
  // What is dropped ends in a non-zero digit (`digits` has no trailing zeros): always round up.
  const kept = dropped >= value.digits.length ? '' : value.digits.slice(0, -dropped);
  return normalized(value.negative, incremented(kept), -9);
}

/** compareMagnitudes orders |left| and |right|. */
function compareMagnitudes(left: QuantityValue, right: QuantityValue): number {
  if (left.digits === '' || right.digits === '') {
    return (left.digits === '' ? 0 : 1) - (right.digits === '' ? 0 : 1);
  }
  // The power of ten of the leading digit decides, then the digits themselves.
  const leftOrder = left.digits.length + left.exponent;
  const rightOrder = right.digits.length + right.exponent;
  if (leftOrder !== rightOrder) return leftOrder < rightOrder ? -1 : 1;
  const length = Math.max(left.digits.length, right.digits.length);
  const leftDigits = left.digits.padEnd(length, '0');
  const rightDigits = right.digits.padEnd(length, '0');
  return leftDigits === rightDigits ? 0 : leftDigits < rightDigits ? -1 : 1;
}

function compareValues(left: QuantityValue, right: QuantityValue): number {
  const sign = (value: QuantityValue) => (value.digits === '' ? 0 : value.negative ? -1 : 1);
  const [leftSign, rightSign] = [sign(left), sign(right)];
  if (leftSign !== rightSign) return leftSign < rightSign ? -1 : 1;
  const magnitudes = compareMagnitudes(left, right);
  return magnitudes === 0 ? 0 : leftSign * magnitudes;
}

/**
 * parseQuantity reads `text` as apimachinery's `resource.ParseQuantity` does (Kubernetes 1.37),
 * to its exact value; undefined when that refuses it, or when it is past this module's bounds
 * ({@link MAX_QUANTITY_LENGTH}, {@link MAX_EXPONENT}).
 *
 * The grammar is the scanner's, quirks included: a sign, digits, a `.` and digits (each part may
 * be empty: `.5`, `1.`, `-` and `k` are all quantities, the last two zero), then a decimal SI
 * suffix (`n u m k M G T P E`), a binary one (`Ki` … `Ei`) or an exponent (`e3`, `E-2`; `E`
 * alone is exa). No spaces. The value is rounded up to a billionth, away from zero, and a
 * binary-suffixed one is capped at 2⁶³−1 (`9Ei` is 9223372036854775807, as stored).
 */
function parseQuantity(text: string): QuantityValue | undefined {
  const length = text.length;
  if (length === 0 || length > MAX_QUANTITY_LENGTH) return undefined;
  let position = 0;
  const negative = text[0] === '-';
  if (negative || text[0] === '+') position++;
  const wholeStart = position;
  while (position < length && isDigit(text, position)) position++;
  const whole = text.slice(wholeStart, position);
  let fraction = '';
  if (text[position] === '.') {
    const fractionStart = ++position;
    while (position < length && isDigit(text, position)) position++;
    fraction = text.slice(fractionStart, position);
  }
  const suffixStart = position;
  while (position < length && SUFFIX_LETTERS.includes(text[position]!)) position++;
  if (text[position] === '+' || text[position] === '-') position++;
  while (position < length && isDigit(text, position)) position++;
  if (position !== length) return undefined;
  const suffix = text.slice(suffixStart);

  const decimal = DECIMAL_SUFFIXES.get(suffix);
  const binary = BINARY_SUFFIXES.get(suffix);
  // Without a digit (`-`, `.`, `k`), apimachinery reads zero on its int64 path but refuses the
  // text on its arbitrary-precision one, which it takes for `Pi`, `Ei` and exponents below -9.
  const noDigits = whole === '' && fraction === '';
  if (noDigits && binary !== undefined && binary >= 50) return undefined;
  let exponent: number;
  if (decimal !== undefined) {
    exponent = decimal;
  } else if (binary !== undefined) {
    // Multiplied out: the digits are bounded by MAX_QUANTITY_LENGTH, the factor by 2^60.
    const product = BigInt(`0${whole}${fraction}`) << BigInt(binary);
    const value = roundedToNanos(normalized(negative, product.toString(), -fraction.length));
    return compareMagnitudes(value, MAX_BINARY) > 0 ? { ...MAX_BINARY, negative } : value;
  } else if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    const power = suffix.slice(1);
    if (!/^[+-]?\d+$/.test(power)) return undefined; // strconv.ParseInt's syntax
    exponent = Number(power);
    if (Math.abs(exponent) > MAX_EXPONENT) return undefined;
  } else {
    return undefined;
  }
  if (noDigits && exponent < -9) return undefined;
  return roundedToNanos(normalized(negative, `${whole}${fraction}`, exponent - fraction.length));
}

/** quantityText is the text the API server reads for `value`: a string as it is, a finite number as JSON writes it. */
function quantityText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  return typeof value === 'number' && Number.isFinite(value) ? JSON.stringify(value) : undefined;
}

/**
 * compareQuantities orders two Kubernetes resource quantities by value, as apimachinery's
 * `Quantity.Cmp` does, however each is written (`0.5` and `500m`, `1Gi` and `1073741824`, `1e3`
 * and `1k` are equal): negative when `left` is less, 0 when equal, positive when greater.
 * A number counts as the JSON text it is sent as. Undefined when either is not a quantity
 * the API server would accept — or is longer than 128 characters, or has an exponent past
 * ±10⁹: those are not read as numbers (see `sameQuantity`).
 */
export function compareQuantities(
  left: string | number,
  right: string | number,
): number | undefined {
  const [leftText, rightText] = [quantityText(left), quantityText(right)];
  if (leftText === undefined || rightText === undefined) return undefined;
  const [leftValue, rightValue] = [parseQuantity(leftText), parseQuantity(rightText)];
  if (leftValue === undefined || rightValue === undefined) return undefined;
  return compareValues(leftValue, rightValue);
}

/**
 * sameQuantity is true when `live` and `desired` are the same resource quantity however each is
 * written: the API server stores `cpu: "0.5"` as `500m` and `memory: "1024Mi"` as `1Gi`, so a
 * comparison of text would see a change that is not there. Values are read exactly as
 * apimachinery's `ParseQuantity` reads them (rounded up to a billionth; binary ones capped at
 * 2⁶³−1), never through floating point. A number counts as its JSON text. Anything else — not a
 * quantity, not a string or number, longer than 128 characters, an exponent past ±10⁹, spaces
 * around it — is equal only to itself (`===`): when unsure it says "different", which costs
 * one apply that changes nothing, never a change left unmade.
 */
export function sameQuantity(live: unknown, desired: unknown): boolean {
  if (live === desired) return true;
  const [liveText, desiredText] = [quantityText(live), quantityText(desired)];
  if (liveText === undefined || desiredText === undefined) return false;
  return compareQuantities(liveText, desiredText) === 0;
}
