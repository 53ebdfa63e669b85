import type { Readable } from 'node:stream';
import {
  logContainers,
  logLines,
  type LogLine,
  type LogLinesOptions,
} from '../streams/log-lines.js';
import { LOG_LINES_OPTIONS, LOG_OPTIONS } from './option-rules.js';
import type { LogOptions } from './request-options.js';
import { logParams } from './request-params.js';
import { checkStreamCall, type SubresourceTarget } from './subresource-target.js';

/** openPodLog opens the log of pod `name` as a byte stream (`pods/log`); see `ResourceClient.logs`. */
export async function openPodLog(
  target: SubresourceTarget,
  name: string,
  options: LogOptions,
): Promise<Readable> {
  checkStreamCall(target, 'log', 'logs', name, options, LOG_OPTIONS);
  return target.get(name, 'log', options).params(logParams(options)).stream();
}

/**
 * podLogLines yields the log lines of pod `name`'s containers; see `ResourceClient.logLines`.
 * The arguments are checked at the call, before the first line is asked for.
 */
export function podLogLines(
  target: SubresourceTarget,
  name: string,
  options: LogLinesOptions,
): AsyncIterable<LogLine> {
  checkStreamCall(target, 'log', 'log lines', name, options, LOG_LINES_OPTIONS);
  const open = (request: LogOptions): Promise<Readable> => openPodLog(target, name, request);
  const containersOf = async (): Promise<(string | undefined)[]> =>
    options.container && !options.allContainers
      ? [options.container]
      : logContainers(
          await target.read(name, options.signal ? { signal: options.signal } : {}),
          options.allContainers ?? false,
        );
  return {
    [Symbol.asyncIterator]: () =>
      (async function* () {
        yield* logLines(open, await containersOf(), options);
      })(),
  };
}
