import { KubeconfigError } from '../errors.js';

const UNIT_MILLISECONDS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const DURATION = /^(?:(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/;
const DURATION_PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g;

/**
 * parseTimeout reads kubectl's `--request-timeout`: a bare non-negative integer is seconds,
 * anything else is a Go duration (`1m30s`, `500ms`). Returns milliseconds; 0 means no timeout.
 */
export function parseTimeout(value: string): number {
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const sign = value.startsWith('-') ? -1 : 1;
  const unsigned = value.replace(/^[-+]/, '');
  if (unsigned === '0') return 0;
  if (DURATION.test(unsigned)) {
    let total = 0;
    for (const [, amount, unit] of unsigned.matchAll(DURATION_PART)) {
      total += Number(amount) * (UNIT_MILLISECONDS[unit ?? ''] ?? 0);
    }
    if (sign > 0) return total;
  }
  throw new KubeconfigError(
    'ERR_KUBECONFIG_INVALID',
    'invalid timeout value. timeout must be a single integer in seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)',
  );
}
