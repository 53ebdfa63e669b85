/** LogFields are structured values attached to a log line (never secrets). */
export type LogFields = Readonly<Record<string, unknown>>;

/**
 * Logger is how @k/runtime reports what it does: structured, with levels. Library code never
 * prints; pass your own (pino, winston, console) or keep the default, which drops everything.
 */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

const drop = (): void => {};

/** SILENT_LOGGER drops every line (the default). */
export const SILENT_LOGGER: Logger = { debug: drop, info: drop, warn: drop, error: drop };
