/** LogFields are structured values attached to a log line (never secrets). */
export type LogFields = Readonly<Record<string, unknown>>;

/**
 * Logger is how @k/runtime reports what it does: structured, with levels. Library code never
 * prints by itself: a Manager and a Controller write to {@link jsonLogger}'s stderr lines unless
 * given another logger (pino, winston, your own) or {@link SILENT_LOGGER}; the building blocks
 * (informers, leader election, events) are silent unless given one.
 */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** LogLevel is the least severe level a {@link jsonLogger} writes. */
type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const drop = (): void => {};

/** SILENT_LOGGER drops every line. */
export const SILENT_LOGGER: Logger = { debug: drop, info: drop, warn: drop, error: drop };

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];
/** A field's text is cut here: an error message quoting a whole object must not flood the log. */
const MAX_FIELD_CHARS = 4096;

/** JsonLoggerOptions configure {@link jsonLogger}. */
export interface JsonLoggerOptions {
  /** level is the least severe level written (default `info`). */
  level?: LogLevel | undefined;
  /** write takes each line, newline included (default: `process.stderr.write`). */
  write?: ((line: string) => void) | undefined;
  /** now is the clock of the `time` field (default `Date.now`). */
  now?: (() => number) | undefined;
}

function fieldValue(value: unknown): unknown {
  if (value instanceof Error) return fieldValue(value.message);
  if (typeof value === 'string' && value.length > MAX_FIELD_CHARS) {
    return `${value.slice(0, MAX_FIELD_CHARS)}… (${value.length - MAX_FIELD_CHARS} more characters)`;
  }
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/**
 * jsonLogger writes one JSON object per line: `{"time":…,"level":"info","msg":…, …fields}` (to
 * stderr by default), the format log collectors parse without configuration. An `Error` field is
 * written as its message; a field that cannot be serialised is written as its `String()`.
 */
export function jsonLogger(options: JsonLoggerOptions = {}): Logger {
  const least = LEVELS.indexOf(options.level ?? 'info');
  const write = options.write ?? ((line: string) => void process.stderr.write(line));
  const now = options.now ?? Date.now;
  const at =
    (level: LogLevel) =>
    (message: string, fields: LogFields = {}): void => {
      const line: Record<string, unknown> = {
        time: new Date(now()).toISOString(),
        level,
        msg: message,
      };
      for (const [name, value] of Object.entries(fields)) {
        if (name in line) continue;
        line[name] = fieldValue(value);
      }
      let text: string;
      try {
        text = JSON.stringify(line);
      } catch {
        text = JSON.stringify({
          ...line,
          ...Object.fromEntries(Object.keys(fields).map((name) => [name, String(fields[name])])),
        });
      }
      write(`${text}\n`);
    };
  const logger: Record<LogLevel, (message: string, fields?: LogFields) => void> = {
    debug: drop,
    info: drop,
    warn: drop,
    error: drop,
  };
  for (const level of LEVELS.slice(Math.max(0, least))) logger[level] = at(level);
  return logger;
}

/** withFields is `logger` with `fields` added to every line (a line's own fields win). */
export function withFields(logger: Logger, fields: LogFields): Logger {
  if (logger === SILENT_LOGGER) return logger;
  return {
    debug: (message, own) => logger.debug(message, { ...fields, ...own }),
    info: (message, own) => logger.info(message, { ...fields, ...own }),
    warn: (message, own) => logger.warn(message, { ...fields, ...own }),
    error: (message, own) => logger.error(message, { ...fields, ...own }),
  };
}
