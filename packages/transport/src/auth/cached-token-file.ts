import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import {
  expectDuration,
  expectOptionalFunction,
  expectOptions,
  expectString,
} from '../checks/argument-checks.js';
import { TransportError } from '../errors.js';

/** client-go's cached file token source: a read is good for a minute… */
export const TOKEN_FILE_REFRESH_INTERVAL_MS = 60_000;
/** …less a 10 s leeway, so the file is re-read at most every ~50 s, lazily on a request. */
export const TOKEN_FILE_REFRESH_LEEWAY_MS = 10_000;

/** CachedTokenFileOptions configure {@link CachedTokenFile}. */
export interface CachedTokenFileOptions {
  /** refreshIntervalMs is how long a read token is used before the file is read again. */
  refreshIntervalMs?: number | undefined;
  /** refreshLeewayMs is subtracted from the interval (client-go: 10 s). */
  refreshLeewayMs?: number | undefined;
  /** now returns the current time in ms; tests pass a fake clock. */
  now?: (() => number) | undefined;
  /** readFile reads the file (tests substitute it); default node:fs/promises readFile. */
  readFile?: ((path: string) => Promise<string>) | undefined;
}

/**
 * CachedTokenFile is a bearer token kept in a file that something else rotates (a projected
 * service-account token, a sidecar's output), read like client-go's cached file token source:
 * the file is re-read lazily when the last read is older than the interval minus the leeway
 * (about every 50 s by default); the content is trimmed; an empty file or a failed read keeps the
 * last good token and is retried on the next call; only when no token was ever read does
 * {@link token} fail, with `failed to read token file "<path>"` or
 * `read empty token from file "<path>"` (never the token).
 *
 * Concurrency: any number of concurrent {@link token} calls share one read (single flight).
 */
export class CachedTokenFile {
  readonly path: string;
  readonly #intervalMs: number;
  readonly #leewayMs: number;
  readonly #now: () => number;
  readonly #readFile: (path: string) => Promise<string>;
  #token: string | undefined;
  #readAt = Number.NEGATIVE_INFINITY;
  #reading: Promise<string> | undefined;

  constructor(path: string, options: CachedTokenFileOptions = {}) {
    expectString(path, 'CachedTokenFile', 'path (the token file)');
    checkCachedTokenFileOptions(options, 'CachedTokenFile');
    this.path = path;
    this.#intervalMs = options.refreshIntervalMs ?? TOKEN_FILE_REFRESH_INTERVAL_MS;
    this.#leewayMs = Math.min(
      options.refreshLeewayMs ??
        (options.refreshIntervalMs === undefined ? TOKEN_FILE_REFRESH_LEEWAY_MS : 0),
      this.#intervalMs,
    );
    this.#now = options.now ?? Date.now;
    this.#readFile = options.readFile ?? ((file) => readFile(file, 'utf8'));
  }

  /**
   * readNow reads the file synchronously and caches it; used once when the transport is built
   * without a static token, so a missing file fails construction (client-go's rule).
   */
  readNow(): string {
    let content: string;
    try {
      content = readFileSync(this.path, 'utf8');
    } catch (error) {
      throw this.#readError(error);
    }
    return this.#accept(content);
  }

  /** token returns the current token, re-reading the file when the cached one is due. */
  token(): Promise<string> {
    if (
      this.#token !== undefined &&
      this.#now() < this.#readAt + this.#intervalMs - this.#leewayMs
    ) {
      return Promise.resolve(this.#token);
    }
    return this.#refresh();
  }

  /**
   * refreshNow re-reads the file right away (still single-flight) and returns the token; used
   * after a 401 to see whether the file holds a token other than the rejected one.
   */
  refreshNow(): Promise<string> {
    return this.#refresh();
  }

  #refresh(): Promise<string> {
    if (this.#reading) return this.#reading;
    const reading = this.#readFile(this.path).then(
      (content) => {
        try {
          return this.#accept(content);
        } catch (error) {
          if (this.#token !== undefined) return this.#token;
          throw error;
        }
      },
      (error: unknown) => {
        if (this.#token !== undefined) return this.#token;
        throw this.#readError(error);
      },
    );
    this.#reading = reading.finally(() => {
      this.#reading = undefined;
    });
    return this.#reading;
  }

  #accept(content: string): string {
    const token = content.trim();
    if (!token) {
      throw new TransportError(
        'ERR_TRANSPORT_FILE_READ',
        `read empty token from file "${this.path}"`,
        {
          path: this.path,
        },
      );
    }
    this.#token = token;
    this.#readAt = this.#now();
    return token;
  }

  #readError(error: unknown): TransportError {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    const reason = code ? `: ${code}` : '';
    return new TransportError(
      'ERR_TRANSPORT_FILE_READ',
      `failed to read token file "${this.path}"${reason}`,
      { path: this.path, cause: error },
    );
  }
}

/** checkCachedTokenFileOptions checks {@link CachedTokenFileOptions}. */
export function checkCachedTokenFileOptions(options: unknown, where: string): void {
  const checked = expectOptions(options, where) as Record<string, unknown>;
  expectDuration(checked.refreshIntervalMs, where, 'options.refreshIntervalMs', 0);
  expectDuration(checked.refreshLeewayMs, where, 'options.refreshLeewayMs', 0);
  expectOptionalFunction(checked.now, where, 'options.now');
  expectOptionalFunction(checked.readFile, where, 'options.readFile');
}
