/**
 * MAX_TIMER_DELAY_MS is the longest delay a Node timer holds: 2^31-1 ms, about 24.8 days. A longer
 * one does not wait longer: Node fires it after 1 ms with a `TimeoutOverflowWarning`.
 */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/**
 * timerDelay is the delay to give `setTimeout` for a duration of `ms` (a number >= 0, already
 * checked), or `undefined` when no timer should be set: for 0 and `Infinity` (no timeout) and
 * for anything longer than {@link MAX_TIMER_DELAY_MS}. A wait of more than ~24.8 days is forever
 * in practice, so it is treated as no timeout rather than chained timers. Pure.
 */
export function timerDelay(ms: number): number | undefined {
  return ms > 0 && ms <= MAX_TIMER_DELAY_MS ? ms : undefined;
}
