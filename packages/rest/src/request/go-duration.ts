/**
 * formatGoDuration formats milliseconds as Go's `time.Duration.String()` does, which is what the
 * API server's `timeout` parameter parses: `500ms`, `30s`, `1m30s`, `5m0s`, `1h0m0s`, `1.5s`.
 * Fractions of a millisecond are dropped; zero is `0s`.
 */
export function formatGoDuration(milliseconds: number): string {
  let ms = Math.trunc(milliseconds);
  if (ms === 0) return '0s';
  const negative = ms < 0;
  if (negative) ms = -ms;
  let text: string;
  if (ms < 1000) {
    text = `${ms}ms`;
  } else {
    const hours = Math.floor(ms / 3_600_000);
    const minutes = Math.floor((ms % 3_600_000) / 60_000);
    const secondsMs = ms % 60_000;
    const whole = Math.floor(secondsMs / 1000);
    const fraction = secondsMs % 1000;
    const seconds =
      fraction === 0
        ? `${whole}`
        : `${whole}.${String(fraction).padStart(3, '0').replace(/0+$/, '')}`;
    if (hours > 0) text = `${hours}h${minutes}m${seconds}s`;
    else if (minutes > 0) text = `${minutes}m${seconds}s`;
    else text = `${seconds}s`;
  }
  return negative ? `-${text}` : text;
}
