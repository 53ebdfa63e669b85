import { loadavg } from 'node:os';

/** median is the middle value of `values` (the upper one of an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? Number.NaN;
}

/** format renders a figure with `digits` decimals and thousands separators (en-US). */
export const format = (value: number, digits = 1): string =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** loadAverage is the machine's 1, 5 and 15 minute load averages as text, for a report's header. */
export function loadAverage(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
}
