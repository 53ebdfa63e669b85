/** ProgressEvent is one report from a long operation (build or start). */
export interface ProgressEvent {
  /** `start`/`end` bracket a step; `heartbeat` repeats while a step runs; `info` is a one-off note. */
  readonly kind: 'start' | 'end' | 'heartbeat' | 'info';
  /** The step, e.g. `go build kube-apiserver kube-controller-manager`. */
  readonly step: string;
  /** Time since the step started, in ms (0 for `start` and `info`). */
  readonly elapsedMs: number;
  readonly message: string;
}

/** ProgressSink receives {@link ProgressEvent}s; it must not throw. */
export type ProgressSink = (event: ProgressEvent) => void;

/** formatDuration renders ms as `850ms`, `12.3s` or `4m05s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.floor((ms % 60_000) / 1000);
  return `${minutes}m${String(seconds).padStart(2, '0')}s`;
}

/**
 * formatProgress renders an event as one line prefixed with the tool's `name`, e.g.
 * `[k-testenv] go mod tidy: done (3.1s)`.
 */
export function formatProgress(event: ProgressEvent, name = 'k-testenv'): string {
  const suffix =
    event.kind === 'start' || event.kind === 'info' ? '' : ` (${formatDuration(event.elapsedMs)})`;
  return `[${name}] ${event.step}: ${event.message}${suffix}`;
}

/** stderrProgressAs is a {@link ProgressSink} that writes each event as a `[name]` line on stderr. */
export function stderrProgressAs(name: string): ProgressSink {
  return (event) => {
    process.stderr.write(`${formatProgress(event, name)}\n`);
  };
}

/** stderrProgress is a {@link ProgressSink} that writes each event as a line on stderr. */
export const stderrProgress: ProgressSink = stderrProgressAs('k-testenv');

/** silentProgress is a {@link ProgressSink} that drops everything. */
export const silentProgress: ProgressSink = () => {};
