import type { LogFields, Logger } from '@k/runtime';

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/** LogLevel is the lowest level a {@link TextLogger} writes. */
export type LogLevel = (typeof LEVELS)[number];

/** isLogLevel narrows a flag value to a {@link LogLevel}. */
export function isLogLevel(value: string): value is LogLevel {
  return (LEVELS as readonly string[]).includes(value);
}

function fieldText(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return /^[^\s"=]+$/.test(text) ? text : JSON.stringify(text);
}

/**
 * TextLogger writes one line per entry, klog's text format simplified:
 * `2026-07-01T10:00:00.000Z INFO reconciled webapp=default/hello wrote=deployment-created`.
 */
export class TextLogger implements Logger {
  readonly #write: (line: string) => void;
  readonly #minimum: number;
  readonly #fields: LogFields;

  constructor(write: (line: string) => void, level: LogLevel = 'info', fields: LogFields = {}) {
    this.#write = write;
    this.#minimum = LEVELS.indexOf(level);
    this.#fields = fields;
  }

  #log(level: LogLevel, message: string, fields: LogFields = {}): void {
    if (LEVELS.indexOf(level) < this.#minimum) return;
    const all = { ...this.#fields, ...fields };
    const rendered = Object.entries(all)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => ` ${key}=${fieldText(value)}`)
      .join('');
    this.#write(`${new Date().toISOString()} ${level.toUpperCase()} ${message}${rendered}\n`);
  }

  debug(message: string, fields?: LogFields): void {
    this.#log('debug', message, fields);
  }

  info(message: string, fields?: LogFields): void {
    this.#log('info', message, fields);
  }

  warn(message: string, fields?: LogFields): void {
    this.#log('warn', message, fields);
  }

  error(message: string, fields?: LogFields): void {
    this.#log('error', message, fields);
  }
}
