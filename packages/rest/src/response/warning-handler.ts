/** WarningHeader is one parsed `Warning` response header entry (RFC 7234 §5.5). */
export interface WarningHeader {
  code: number;
  agent: string;
  text: string;
}

/**
 * WarningHandler receives the server's warnings (deprecated APIs, unknown fields). It is called
 * once per warning of each response, synchronously, possibly from many requests at once; it must
 * not throw.
 */
export interface WarningHandler {
  handleWarning(warning: WarningHeader): void;
}

function parseQuotedString(input: string): { text: string; remainder: string } {
  if (input.length === 0) throw new Error('invalid quoted string: 0-length');
  if (input[0] !== '"') throw new Error('invalid quoted string: missing initial quote');
  let text = '';
  let escaping = false;
  for (let index = 1; index < input.length; index += 1) {
    const character = input[index] as string;
    if (character === '"' && !escaping) {
      return { text, remainder: input.slice(index + 1).trim() };
    }
    if (character === '\\' && !escaping) {
      escaping = true;
      continue;
    }
    text += character;
    escaping = false;
  }
  throw new Error('invalid quoted string: missing closing quote');
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const ENCODED_WORD = /=\?([^?]+)\?([bBqQ])\?([^?]*)\?=/g;

function decodeEncodedWords(text: string): string {
  if (!text.includes('=?')) return text;
  return text.replace(ENCODED_WORD, (word, charset: string, encoding: string, data: string) => {
    const label = charset.toLowerCase();
    if (label !== 'utf-8' && label !== 'us-ascii' && label !== 'iso-8859-1') return word;
    const bytes =
      encoding.toLowerCase() === 'b'
        ? Buffer.from(data, 'base64')
        : Buffer.from(
            data
              .replace(/_/g, ' ')
              .replace(/=([0-9A-Fa-f]{2})/g, (_match, hex: string) =>
                String.fromCharCode(Number.parseInt(hex, 16)),
              ),
            'latin1',
          );
    return label === 'iso-8859-1' ? bytes.toString('latin1') : bytes.toString('utf8');
  });
}

/**
 * parseWarningHeader parses the first warning of a `Warning` header value — `<3 digits> <agent>
 * "<text>" ["<date>"]` — and returns it with the rest of the value after a comma (apimachinery's
 * `ParseWarningHeader`, RFC 2047 encoded words in the text decoded). Throws on a malformed entry.
 */
export function parseWarningHeader(header: string): { warning: WarningHeader; remainder: string } {
  const trimmed = header.trim();
  const firstSpace = trimmed.indexOf(' ');
  const secondSpace = firstSpace === -1 ? -1 : trimmed.indexOf(' ', firstSpace + 1);
  if (firstSpace === -1 || secondSpace === -1) {
    throw new Error('invalid warning header: fewer than 3 segments');
  }
  const code = trimmed.slice(0, firstSpace);
  const agent = trimmed.slice(firstSpace + 1, secondSpace);
  const textDateRemainder = trimmed.slice(secondSpace + 1);
  if (!/^[0-9]{3}$/.test(code)) {
    throw new Error('invalid warning header: code segment is not 3 digits between 100-299');
  }
  if (agent.length === 0) throw new Error('invalid warning header: empty agent segment');
  if (CONTROL.test(agent)) throw new Error('invalid warning header: invalid agent');
  if (textDateRemainder.length === 0) throw new Error('invalid warning header: empty text segment');
  let parsed: { text: string; remainder: string };
  try {
    parsed = parseQuotedString(textDateRemainder);
  } catch (error) {
    throw new Error(`invalid warning header: ${(error as Error).message}`);
  }
  const text = decodeEncodedWords(parsed.text);
  if (CONTROL.test(text)) throw new Error('invalid warning header: invalid text');
  let remainder = '';
  const dateAndRemainder = parsed.remainder;
  if (dateAndRemainder.length > 0) {
    if (dateAndRemainder[0] === '"') {
      const endQuote = dateAndRemainder.indexOf('"', 1);
      if (endQuote === -1) throw new Error('invalid warning header: unterminated date segment');
      remainder = dateAndRemainder.slice(endQuote + 1).trim();
    } else {
      remainder = dateAndRemainder;
    }
  }
  if (remainder.length > 0) {
    if (remainder[0] !== ',') {
      throw new Error('invalid warning header: unexpected token after warn-date');
    }
    remainder = remainder.slice(1).trim();
  }
  return { warning: { code: Number.parseInt(code, 10), agent, text }, remainder };
}

/**
 * MAX_WARNINGS_PER_RESPONSE bounds the warnings (and the malformed entries) read from one
 * response: kube-apiserver sends at most 4 KiB of them, and what a server or proxy sends must not
 * make every request call the handler without bound.
 */
export const MAX_WARNINGS_PER_RESPONSE = 100;

/**
 * parseWarningHeaders parses every warning of every `Warning` header value; a malformed entry
 * ends the parsing of its header value (the rest is skipped) and is reported in `errors`. At
 * most {@link MAX_WARNINGS_PER_RESPONSE} warnings and as many errors are returned; past that,
 * the rest is skipped and one more error says so.
 */
export function parseWarningHeaders(headers: string | readonly string[] | undefined): {
  warnings: WarningHeader[];
  errors: Error[];
} {
  const warnings: WarningHeader[] = [];
  const errors: Error[] = [];
  if (headers === undefined) return { warnings, errors };
  for (const value of typeof headers === 'string' ? [headers] : headers) {
    let rest = value;
    while (rest.length > 0) {
      if (
        warnings.length >= MAX_WARNINGS_PER_RESPONSE ||
        errors.length >= MAX_WARNINGS_PER_RESPONSE
      ) {
        errors.push(
          new Error(
            `more than ${MAX_WARNINGS_PER_RESPONSE} warnings in one response: the rest are skipped`,
          ),
        );
        return { warnings, errors };
      }
      try {
        const { warning, remainder } = parseWarningHeader(rest);
        warnings.push(warning);
        rest = remainder;
      } catch (error) {
        errors.push(error as Error);
        break;
      }
    }
  }
  return { warnings, errors };
}

/** WarningLoggerOptions configure a {@link WarningLogger}. */
export interface WarningLoggerOptions {
  /** deduplicate prints each distinct text once per logger (default true). */
  deduplicate?: boolean | undefined;
  /**
   * maxRemembered bounds how many distinct texts deduplication remembers (default 1024); past
   * it the oldest is forgotten (and would print again), so a server that puts changing text in
   * its warnings cannot grow a long-running process without bound.
   */
  maxRemembered?: number | undefined;
  /** write receives each line, `Warning: <text>\n` (default: standard error). */
  write?: ((line: string) => void) | undefined;
}

/**
 * WarningLogger is the default {@link WarningHandler}: it writes `Warning: <text>` for warnings
 * with code 299 and non-empty text (client-go's rule), each distinct text once by default
 * (among the last `maxRemembered` distinct texts).
 */
export class WarningLogger implements WarningHandler {
  readonly #seen = new Set<string>();
  readonly #deduplicate: boolean;
  readonly #maxRemembered: number;
  readonly #write: (line: string) => void;

  constructor(options: WarningLoggerOptions = {}) {
    this.#deduplicate = options.deduplicate ?? true;
    this.#maxRemembered = Math.max(1, Math.trunc(options.maxRemembered ?? 1024));
    this.#write = options.write ?? ((line) => process.stderr.write(line));
  }

  handleWarning(warning: WarningHeader): void {
    if (warning.code !== 299 || warning.text === '') return;
    if (this.#deduplicate) {
      if (this.#seen.has(warning.text)) return;
      this.#seen.add(warning.text);
      // A Set iterates in insertion order: the first entry is the oldest.
      if (this.#seen.size > this.#maxRemembered) {
        this.#seen.delete(this.#seen.values().next().value as string);
      }
    }
    this.#write(`Warning: ${warning.text}\n`);
  }
}

/** NO_WARNINGS is a {@link WarningHandler} that ignores every warning. */
export const NO_WARNINGS: WarningHandler = { handleWarning: () => undefined };
