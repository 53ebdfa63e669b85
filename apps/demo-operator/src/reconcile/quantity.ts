/**
 * A Kubernetes resource quantity (`500m`, `1Gi`, `1e3`, `0.5`) as an exact number: `nanos` is
 * the value in billionths, rounded up (away from zero) as the API server rounds anything finer
 * than a nano.
 */
interface ExactQuantity {
  readonly nanos: bigint;
}

const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SUFFIXES: Record<string, number> = {
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

// apimachinery's grammar: a signed decimal number, then a binary or decimal SI suffix or an
// exponent (`e3`, `E-2`: a letter followed by a signed integer; `E` alone is exa).
const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:([KMGTPE]i|[numkMGTPE])|[eE]([+-]?\d+))?$/;

/**
 * MAX_QUANTITY_LENGTH bounds the text parsed as a number. A WebApp's quantity is a tenant's string
 * that the schema bounds only by its pattern: a million digits took 0.2 s to read as a BigInt, on
 * every reconcile. Real quantities are a few characters.
 */
const MAX_QUANTITY_LENGTH = 128;

/** parseQuantity reads `text` as a quantity; undefined when it is not one or is too long. */
function parseQuantity(text: string): ExactQuantity | undefined {
  if (text.length > MAX_QUANTITY_LENGTH) return undefined;
  const match = QUANTITY.exec(text);
  if (!match) return undefined;
  const [, sign, number = '', suffix = '', exponent] = match;
  const [whole = '', fraction = ''] = number.split('.');
  let mantissa = BigInt(`${whole}${fraction}` || '0');
  let power = -fraction.length;
  if (exponent !== undefined) {
    power += Number(exponent);
  } else if (suffix in BINARY_SUFFIXES) {
    mantissa *= 2n ** BigInt(BINARY_SUFFIXES[suffix]!);
  } else {
    power += DECIMAL_SUFFIXES[suffix]!;
  }
  if (!Number.isSafeInteger(power) || Math.abs(power) > 1000) return undefined;
  // Scale to nanos; below a nano the server rounds up, away from zero.
  const shift = power + 9;
  let nanos: bigint;
  if (shift >= 0) {
    nanos = mantissa * 10n ** BigInt(shift);
  } else {
    const divisor = 10n ** BigInt(-shift);
    nanos = mantissa / divisor + (mantissa % divisor === 0n ? 0n : 1n);
  }
  return { nanos: sign === '-' ? -nanos : nanos };
}

/**
 * sameQuantity is true when `live` and `desired` are the same resource quantity however each is
 * written: the API server stores `cpu: "0.5"` as `500m` and `memory: "1024Mi"` as `1Gi`, so a
 * textual comparison would see a change that is not there. Numbers (an integer in a WebApp's
 * spec) count as their decimal text. Anything that is not a quantity, or longer than 128
 * characters, compares as it is.
 */
export function sameQuantity(live: unknown, desired: unknown): boolean {
  if (live === desired) return true;
  const text = (value: unknown) =>
    typeof value === 'number' ? String(value) : typeof value === 'string' ? value : undefined;
  const [liveText, desiredText] = [text(live), text(desired)];
  if (liveText === undefined || desiredText === undefined) return false;
  const [left, right] = [parseQuantity(liveText), parseQuantity(desiredText)];
  return left !== undefined && right !== undefined && left.nanos === right.nanos;
}
