import type { Readable } from 'node:stream';
import { ApiError, sleep, systemClock } from '@k/rest';
import { ClientsetError } from '../errors.js';
import type { LogOptions } from '../resource/request-options.js';
import { wholeCharacters } from './bounded-text.js';
import { LineSplitter, type SplitLine } from './line-splitter.js';

/** LogLine is one line of a container's log. */
export interface LogLine {
  /** container is the container that wrote it (`''` when the server chose it). */
  container: string;
  /** timestamp is the kubelet's RFC 3339 timestamp of the line (nanoseconds, UTC). */
  timestamp: string;
  /** text is the line without its newline (and without the timestamp). */
  text: string;
  /**
   * truncatedBytes is set when the line's text was longer than `maxLineBytes`: the number of
   * bytes cut off its end (`text` is the first `maxLineBytes`, on a character boundary).
   */
  truncatedBytes?: number | undefined;
}

/** LogReconnect tunes how a followed log is reopened after its connection broke. */
export interface LogReconnect {
  /** maxAttempts bounds the reopenings in a row that fail (default 10; reset by a line read). */
  maxAttempts?: number | undefined;
  /** delayMs is the wait before reopening, doubled per failure up to 30 s (default 500). */
  delayMs?: number | undefined;
}

/**
 * LogLinesOptions are the options of `pods(ns).logLines()`: those of `logs()` without `timestamps`
 * (every line carries its timestamp) and `stream`, plus which containers and how to reconnect.
 */
export interface LogLinesOptions extends Omit<LogOptions, 'timestamps' | 'container' | 'stream'> {
  /** container names one container (required for a pod of several unless `allContainers`). */
  container?: string | undefined;
  /** allContainers reads every container of the pod: init, regular and ephemeral ones. */
  allContainers?: boolean | undefined;
  /**
   * reconnect reopens a followed log whose connection broke (not one the server ended: the
   * container stopped) from the last line's timestamp, without repeating lines. Default on
   * with `follow`; `false` turns it off.
   */
  reconnect?: boolean | LogReconnect | undefined;
  /**
   * maxLineBytes bounds the text of one line, in bytes (default 1 MiB, {@link MAX_LINE_BYTES}):
   * a longer line is cut and carries `truncatedBytes`, so one endless line from a container
   * cannot fill memory.
   */
  maxLineBytes?: number | undefined;
}

/** MAX_LINE_BYTES is the default bound of a log line's text: 1 MiB. */
export const MAX_LINE_BYTES = 1024 * 1024;

/** TIMESTAMP_ROOM is kept for a line's timestamp and space beyond `maxLineBytes` (they use 31). */
const TIMESTAMP_ROOM = 64;

/** The open function of one container's log (the resource client's `logs`). */
export type OpenLog = (options: LogOptions) => Promise<Readable>;

/** A timestamp as a sortable key: the fraction padded to nanoseconds (RFC3339Nano trims zeros). */
function timestampKey(timestamp: string): string {
  const match = /^(.*?T\d\d:\d\d:\d\d)(?:\.(\d+))?Z$/.exec(timestamp);
  if (!match) return timestamp;
  return `${match[1]}.${(match[2] ?? '').padEnd(9, '0')}Z`;
}

/** toSeconds cuts a timestamp to whole seconds, what `sinceTime` keeps on its way to the kubelet. */
function toSeconds(timestamp: string): string {
  return timestamp.replace(/\.\d+Z$/, 'Z');
}

/**
 * toLogLine reads a line as the kubelet writes it with timestamps (`<RFC 3339> <text>`) and cuts
 * its text to `maxLineBytes` (`line.dropped` counts what the splitter already left out).
 */
function toLogLine(container: string, line: SplitLine, maxLineBytes: number): LogLine {
  const { bytes } = line;
  const space = bytes.indexOf(0x20);
  if (space === -1) {
    const whole = { container, timestamp: bytes.toString('utf8'), text: '' };
    return line.dropped > 0 ? { ...whole, truncatedBytes: line.dropped } : whole;
  }
  const timestamp = bytes.toString('utf8', 0, space);
  const textBytes = bytes.subarray(space + 1);
  if (line.dropped === 0 && textBytes.length <= maxLineBytes) {
    return { container, timestamp, text: textBytes.toString('utf8') };
  }
  const kept = textBytes.subarray(0, Math.min(textBytes.length, maxLineBytes));
  const whole = kept.subarray(0, wholeCharacters(kept));
  return {
    container,
    timestamp,
    text: whole.toString('utf8'),
    truncatedBytes: textBytes.length - whole.length + line.dropped,
  };
}

/**
 * followContainer yields the lines of one container's log. It always asks for timestamps, so
 * after a broken connection it can reopen with `sinceTime` at the last line's second and drop
 * what it already gave: lines older than the last one, and as many lines with exactly the last
 * timestamp as it had seen.
 */
async function* containerLines(
  open: OpenLog,
  container: string | undefined,
  options: LogLinesOptions,
): AsyncGenerator<LogLine> {
  const reconnect =
    options.follow && options.reconnect !== false
      ? typeof options.reconnect === 'object'
        ? options.reconnect
        : {}
      : undefined;
  const maxAttempts = reconnect?.maxAttempts ?? 10;
  const baseDelayMs = reconnect?.delayMs ?? 500;
  const maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
  let lastKey: string | undefined;
  let lastTimestamp: string | undefined;
  let seenAtLast = 0;
  let failures = 0;
  for (;;) {
    const request: LogOptions = {
      ...(container ? { container } : {}),
      timestamps: true,
      ...(options.follow ? { follow: true } : {}),
      ...(options.previous ? { previous: true } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.insecureSkipTLSVerifyBackend ? { insecureSkipTLSVerifyBackend: true } : {}),
    };
    if (lastTimestamp === undefined) {
      // The first request: the caller's selection as given.
      if (options.sinceTime !== undefined) request.sinceTime = options.sinceTime;
      if (options.sinceSeconds !== undefined) request.sinceSeconds = options.sinceSeconds;
      if (options.tailLines !== undefined) request.tailLines = options.tailLines;
      if (options.limitBytes !== undefined) request.limitBytes = options.limitBytes;
    } else {
      request.sinceTime = toSeconds(lastTimestamp);
    }
    let stream: Readable | undefined;
    let skipAtLast = seenAtLast;
    try {
      stream = await open(request);
      const splitter = new LineSplitter(maxLineBytes + TIMESTAMP_ROOM);
      for await (const chunk of stream) {
        const data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer);
        for (const split of splitter.push(data)) {
          const line = toLogLine(container ?? '', split, maxLineBytes);
          const timestamp = line.timestamp;
          const key = timestampKey(timestamp);
          if (lastKey !== undefined && key < lastKey) continue;
          if (key === lastKey && skipAtLast > 0) {
            skipAtLast -= 1;
            continue;
          }
          if (key === lastKey) seenAtLast += 1;
          else {
            lastKey = key;
            seenAtLast = 1;
            skipAtLast = 0;
          }
          lastTimestamp = timestamp;
          failures = 0;
          yield line;
        }
      }
      // The server ended it: the container stopped, or the log was not followed.
      const last = splitter.end();
      if (last) yield toLogLine(container ?? '', last, maxLineBytes);
      return;
    } catch (error) {
      // Destroyed on this side without an error: the client closed its streams, the log is over.
      if (stream?.destroyed && !stream.errored && !options.signal?.aborted) return;
      // A refusal (the pod is gone, 403) or an abort is final; a broken connection is not.
      if (!reconnect || error instanceof ApiError || options.signal?.aborted) throw error;
      failures += 1;
      if (failures > maxAttempts) throw error;
      const delay = Math.min(baseDelayMs * 2 ** (failures - 1), 30_000);
      await sleep(systemClock, delay, options.signal);
    }
  }
}

/**
 * mergeLines yields the lines of several containers as they come (for followed logs), each
 * source read one line ahead at most.
 */
async function* mergeLines(sources: AsyncGenerator<LogLine>[]): AsyncGenerator<LogLine> {
  const pending = new Map<number, Promise<{ index: number; next: IteratorResult<LogLine> }>>();
  const pull = (index: number): void => {
    const source = sources[index] as AsyncGenerator<LogLine>;
    pending.set(
      index,
      source.next().then((next) => ({ index, next })),
    );
  };
  sources.forEach((_source, index) => pull(index));
  try {
    while (pending.size > 0) {
      const { index, next } = await Promise.race(pending.values());
      if (next.done) {
        pending.delete(index);
        continue;
      }
      pull(index);
      yield next.value;
    }
  } finally {
    await Promise.all(sources.map((source) => source.return(undefined)));
  }
}

/**
 * logLines yields the lines of `containers`' logs: one after the other when not following (as
 * `kubectl logs --all-containers`), interleaved as they arrive when following.
 */
export async function* logLines(
  open: OpenLog,
  containers: readonly (string | undefined)[],
  options: LogLinesOptions,
): AsyncGenerator<LogLine> {
  const { maxLineBytes } = options;
  if (maxLineBytes !== undefined && !(Number.isSafeInteger(maxLineBytes) && maxLineBytes > 0)) {
    throw new ClientsetError(
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      'log lines: options.maxLineBytes must be a positive integer',
      { resource: 'pods' },
    );
  }
  if (options.follow && containers.length > 1) {
    yield* mergeLines(containers.map((container) => containerLines(open, container, options)));
    return;
  }
  for (const container of containers) yield* containerLines(open, container, options);
}

type PodContainers = Partial<
  Record<'containers' | 'initContainers' | 'ephemeralContainers', readonly { name: string }[]>
>;

/**
 * logContainers names the containers whose logs to read from a pod: all of them (init,
 * regular, ephemeral), or its only container (`undefined` when it has several: the server then
 * answers that one must be chosen).
 */
export function logContainers(pod: unknown, all: boolean): (string | undefined)[] {
  const spec = (pod as { spec?: PodContainers }).spec ?? {};
  if (all) {
    return [
      ...(spec.initContainers ?? []),
      ...(spec.containers ?? []),
      ...(spec.ephemeralContainers ?? []),
    ].map((container) => container.name);
  }
  const containers = spec.containers ?? [];
  return containers.length === 1 ? [containers[0]?.name] : [undefined];
}
