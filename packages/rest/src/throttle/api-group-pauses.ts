import type { RateLimiter } from './token-bucket.js';

/**
 * ApiGroupPauses remembers, per API group, until when the server asked requests to hold back (a
 * 429 with `Retry-After`). The pushback of one group — often an aggregated API or a proxy in
 * front of it, with its own limits — stops only the requests to that group, never the rest of
 * the client. Entries go away when they expire, so the map holds at most one per group in use.
 */
export class ApiGroupPauses {
  readonly #until = new Map<string, number>();

  /** active is true while any group may be paused (the executor's fast path skips the rest). */
  get active(): boolean {
    return this.#until.size > 0;
  }

  /** pause holds back `group` until `untilMs` (on the executor's clock); pauses extend, never shorten. */
  pause(group: string, untilMs: number): void {
    const current = this.#until.get(group);
    if (current === undefined || untilMs > current) this.#until.set(group, untilMs);
  }

  /** remainingMs is how long requests to `group` must still wait at `nowMs` (0: go). */
  remainingMs(group: string, nowMs: number): number {
    const until = this.#until.get(group);
    if (until === undefined) return 0;
    if (until <= nowMs) {
      this.#until.delete(group);
      return 0;
    }
    return until - nowMs;
  }
}

// One pause table per rate limiter, so every client sharing a limiter (one configuration) shares
// its pauses too, as they share its tokens — whatever limiter implementation the user plugged in.
const pausesByLimiter = new WeakMap<RateLimiter, ApiGroupPauses>();

/** apiGroupPausesFor returns the pause table shared by every client using `limiter`. */
export function apiGroupPausesFor(limiter: RateLimiter): ApiGroupPauses {
  let pauses = pausesByLimiter.get(limiter);
  if (!pauses) {
    pauses = new ApiGroupPauses();
    pausesByLimiter.set(limiter, pauses);
  }
  return pauses;
}

/**
 * apiGroupOf names the API group a request path belongs to, after the server's base path:
 * `/api/…` is the core group (`''`), `/apis/<group>/…` is `<group>`, anything else (`/healthz`,
 * `/openapi/v3`, `/version`) is its first segment with a leading slash.
 */
export function apiGroupOf(path: string, basePath: string): string {
  const rest = basePath !== '' && path.startsWith(basePath) ? path.slice(basePath.length) : path;
  if (rest === '/api' || rest.startsWith('/api/')) return '';
  if (rest.startsWith('/apis/')) {
    const end = rest.indexOf('/', 6);
    return end === -1 ? rest.slice(6) : rest.slice(6, end);
  }
  const end = rest.indexOf('/', 1);
  return end === -1 ? rest : rest.slice(0, end);
}
