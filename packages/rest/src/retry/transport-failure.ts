/**
 * TransportFailureKind sorts transport errors by what they say about the request:
 * `unsent` — it certainly never reached the server (connection refused, DNS, connect timeout);
 * `reset` — the connection broke (reset, closed, broken pipe, body shorter than announced);
 * `timeout` — a socket timeout (headers or body); `aborted` — we cancelled it; `other` — e.g. TLS.
 */
export type TransportFailureKind = 'unsent' | 'reset' | 'timeout' | 'aborted' | 'other';

const UNSENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const RESET = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'ERR_STREAM_PREMATURE_CLOSE',
]);
const TIMEOUT = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
const ABORTED = new Set(['UND_ERR_ABORTED', 'ABORT_ERR']);

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * classifyTransportFailure returns the {@link TransportFailureKind} of an error thrown by undici
 * or a socket, looking through `cause` chains (fetch-style wrapping) up to a few levels.
 */
export function classifyTransportFailure(error: unknown): TransportFailureKind {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth += 1) {
    const code = codeOf(current);
    if (code !== undefined) {
      if (UNSENT.has(code)) return 'unsent';
      if (RESET.has(code)) return 'reset';
      if (TIMEOUT.has(code)) return 'timeout';
      if (ABORTED.has(code)) return 'aborted';
    }
    if (current instanceof Error && current.name === 'AbortError') return 'aborted';
    current = (current as { cause?: unknown }).cause;
  }
  return 'other';
}

/** describeTransportFailure is a short, secret-free description of a transport error. */
export function describeTransportFailure(error: unknown): string {
  const code = codeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  return code !== undefined && !message.includes(code) ? `${message} (${code})` : message;
}
