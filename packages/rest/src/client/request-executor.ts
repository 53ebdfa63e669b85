import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { ApiError, ConnectionError, type ApiErrorRequest } from '../errors.js';
import type { RestRequest } from '../request/rest-request.js';
import type { WarningHandler } from '../response/warning-handler.js';
import { parseWarningHeaders } from '../response/warning-handler.js';
import { parseRetryAfter, type RetryPolicy, type RetryRequest } from '../retry/retry-policy.js';
import { classifyTransportFailure, describeTransportFailure } from '../retry/transport-failure.js';
import { decodeProtobufObject, isProtobufMediaType } from '../protobuf/protobuf-object.js';
import { genericStatus, isStatus } from '../status.js';
import { sleep, type Clock } from '../timers/clock.js';
import {
  apiGroupOf,
  apiGroupPausesFor,
  type ApiGroupPauses,
} from '../throttle/api-group-pauses.js';
import type { RateLimiter } from '../throttle/token-bucket.js';
import { BufferingHandler } from './buffering-handler.js';
import { RequestScope } from './request-scope.js';

/** RetryEvent describes a retry about to happen (for logs and metrics). */
export interface RetryEvent {
  request: ApiErrorRequest;
  /** retry counts from 1. */
  retry: number;
  delayMs: number;
  /** reason is client-go's retry reason text. */
  reason: string;
}

/**
 * ThrottleEvent describes the client-side throttle token an attempt took, once it has it (or gave
 * up waiting for it): what client-go records as `rest_client_rate_limiter_duration_seconds` and
 * logs as "Waited before sending request" when the wait was long (over 50 ms; 1 s at a higher
 * level). Every attempt takes a token but a watch's first.
 */
export interface ThrottleEvent {
  request: ApiErrorRequest;
  /** host is the server's `host[:port]` (client-go's `host` label). */
  host: string;
  /**
   * waitedMs is how long the attempt waited for its token, on the client's clock: 0 when one was
   * ready; when the request's timeout or signal ended the wait, how long it had waited by then.
   */
  waitedMs: number;
}

/** ExecutorSettings are what a {@link RequestExecutor} sends with; shared by sibling clients. */
export interface ExecutorSettings {
  dispatcher: Dispatcher;
  /** origin is `scheme://host:port` of the server. */
  origin: string;
  /** basePath is the server URL's path without a trailing slash (`''` for most servers). */
  basePath: string;
  throttle: RateLimiter;
  retry: RetryPolicy;
  /** defaultTimeoutMs bounds a request without its own timeout (0: none). */
  defaultTimeoutMs: number;
  warningHandler: WarningHandler;
  clock: Clock;
  onRetry: ((event: RetryEvent) => void) | undefined;
  onThrottle: ((event: ThrottleEvent) => void) | undefined;
}

/** HeaderMap is undici's response header object (lowercase names). */
export type HeaderMap = Record<string, string | string[] | undefined>;

/** BufferedAs is how a buffered body is handed over: see {@link RequestExecutor.buffered}. */
export type BufferedAs = 'text' | 'bytes' | 'protobuf-or-text';

/** BufferedResponse is a 2xx response read to the end, as text or as bytes. */
export interface BufferedResponse<Body extends string | Buffer = string | Buffer> {
  statusCode: number;
  headers: HeaderMap;
  body: Body;
}

/** OpenResponse is a 2xx response whose body is left for the caller to read or destroy. */
export interface OpenResponse {
  statusCode: number;
  headers: HeaderMap;
  body: Readable;
  /** done releases the request's timeout timer and signal listener. */
  done: () => void;
}

/** MAX_ERROR_BODY_BYTES bounds how much of an error body is read to decode a Status. */
const MAX_ERROR_BODY_BYTES = 1024 * 1024;
/** MAX_ERROR_TEXT_BYTES bounds the text of a non-Status error body quoted in messages (client-go's 2 KiB). */
const MAX_ERROR_TEXT_BYTES = 2048;
/** Bodies of responses that are retried are drained up to this many bytes, then destroyed. */
const DRAIN_LIMIT_BYTES = 64 * 1024;
const EMPTY = Buffer.alloc(0);

/** Attempt is one attempt's answer: a buffered body (`bytes`), or a stream left open. */
interface Attempt {
  statusCode: number;
  headers: HeaderMap;
  bytes?: Buffer;
  stream?: Dispatcher.ResponseData['body'];
  /** failure cut a buffered body short after the headers. */
  failure?: Error | undefined;
}

function header(headers: HeaderMap, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : value?.[0];
}

function errorRequest(request: RestRequest): ApiErrorRequest {
  return { method: request.method, path: request.path };
}

async function readLimited(body: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    length += chunk.length;
    if (length > limit) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks, Math.min(length, limit));
}

function isTextContentType(contentType: string | undefined): boolean {
  return contentType === undefined || contentType === '' || /^\s*text\//i.test(contentType);
}

/**
 * apiErrorFromResponse turns a non-2xx response into an `ApiError`: the body's `Status` when it is
 * one saying `Failure` (its code wins over the HTTP code), else client-go's generic Status for the
 * HTTP code with the trimmed body text (first 2 KiB, text bodies only) as the server message.
 */
export function apiErrorFromResponse(
  request: RestRequest,
  statusCode: number,
  headers: HeaderMap,
  body: Buffer,
): ApiError {
  const contentType = header(headers, 'content-type');
  const retryAfterSeconds = parseRetryAfter(headers['retry-after']);
  const common = {
    httpStatusCode: statusCode,
    request: errorRequest(request),
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    ...(contentType !== undefined ? { contentType } : {}),
  };
  if (body.length > 0 && (body[0] === 0x7b /* { */ || isProtobufMediaType(contentType))) {
    try {
      const decoded: unknown =
        body[0] === 0x7b ? JSON.parse(body.toString('utf8')) : decodeProtobufObject(body);
      if (isStatus(decoded) && decoded.status === 'Failure') return new ApiError(decoded, common);
    } catch {
      // Not a Status (or cut short): fall through to the generic error.
    }
  }
  const text = isTextContentType(contentType)
    ? body.subarray(0, MAX_ERROR_TEXT_BYTES).toString('utf8').trim()
    : 'unknown';
  const status = genericStatus(
    statusCode,
    {
      method: request.method,
      group: request.group,
      resource: request.resource,
      name: request.name,
    },
    text,
    retryAfterSeconds,
    true,
  );
  return new ApiError(status, { ...common, unexpected: true });
}

/**
 * RequestExecutor runs requests through throttle → retry → transport. For each attempt it waits
 * out a pause of the request's API group (the server answered one of them 429 with Retry-After),
 * takes a throttle token (the first attempt of a watch excepted, as client-go), sends through the
 * dispatcher and lets the {@link RetryPolicy} judge the outcome; bodies of responses it retries
 * or rejects are always drained or destroyed so connections go back to the pool. A request
 * timeout covers every attempt, wait and (for buffered requests) body read, and a retry that
 * would wait past it fails at once with the answer that caused it. Every wait keeps the process
 * alive. Safe for concurrent use.
 */
export class RequestExecutor {
  readonly settings: ExecutorSettings;
  readonly #pauses: ApiGroupPauses;
  /** #host is the server's `host[:port]`, for {@link ThrottleEvent}s. */
  readonly #host: string;

  constructor(settings: ExecutorSettings) {
    this.settings = settings;
    this.#pauses = apiGroupPausesFor(settings.throttle);
    // The origin is the transport's, parsed from the server URL already: it is a URL.
    this.#host = new URL(settings.origin).host;
  }

  #handleWarnings(headers: HeaderMap): void {
    const warning = headers.warning;
    if (warning === undefined) return;
    for (const parsed of parseWarningHeaders(warning).warnings) {
      try {
        this.settings.warningHandler.handleWarning(parsed);
      } catch {
        // A warning handler must not break the request.
      }
    }
  }

  /**
   * buffered sends `request` and reads a 2xx body to the end (retrying a GET cut mid-body), as
   * UTF-8 text (what JSON.parse takes), as bytes, or — `protobuf-or-text`, for a request that
   * accepts protobuf — as bytes when the answer is protobuf and as text otherwise. Text is
   * decoded here so the joined bytes are garbage before the caller parses: a 12 MB list would
   * otherwise hold its bytes and its text at once.
   */
  async buffered(request: RestRequest, as: 'text'): Promise<BufferedResponse<string>>;
  async buffered(request: RestRequest, as: 'bytes'): Promise<BufferedResponse<Buffer>>;
  async buffered(request: RestRequest, as: BufferedAs): Promise<BufferedResponse>;
  async buffered(request: RestRequest, as: BufferedAs): Promise<BufferedResponse> {
    const timeoutMs = request.timeoutMs ?? this.settings.defaultTimeoutMs;
    const scope = new RequestScope(request, timeoutMs);
    try {
      return (await this.#run(request, scope, as)) as BufferedResponse;
    } finally {
      scope.release();
    }
  }

  /**
   * open sends `request` and resolves at the headers of a 2xx response, leaving the body to the
   * caller (streams and watches: no overall deadline, the `timeout` parameter bounds them).
   */
  async open(request: RestRequest, watch: boolean): Promise<OpenResponse> {
    const scope = new RequestScope(request, 0);
    try {
      const response = (await this.#run(request, scope, watch ? 'watch' : 'open')) as Omit<
        OpenResponse,
        'done'
      >;
      return { ...response, done: () => scope.release() };
    } catch (error) {
      scope.release();
      throw error;
    }
  }

  async #run(
    request: RestRequest,
    scope: RequestScope,
    mode: BufferedAs | 'open' | 'watch',
  ): Promise<BufferedResponse | Omit<OpenResponse, 'done'>> {
    const { origin, throttle, retry } = this.settings;
    const body = request.body;
    const streamed =
      body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array);
    const retryRequest: RetryRequest = {
      method: request.method,
      watch: mode === 'watch',
      replayable: !streamed,
    };
    const maxRetries = request.maxRetries ?? retry.maxRetries;
    const path = request.query === '' ? request.path : request.path + request.query;
    const buffered = mode !== 'open' && mode !== 'watch';
    let group: string | undefined;
    for (let retries = 0; ; retries += 1) {
      if (this.#pauses.active) {
        group ??= apiGroupOf(request.path, this.settings.basePath);
        await this.#waitForPause(group, scope);
      }
      if (retries > 0 || mode !== 'watch') {
        // tryAcquire first: the common case takes a token without making an AbortSignal.
        const wait = throttle.tryAcquire() ? undefined : throttle.acquire(scope.signal);
        if (wait !== undefined) await this.#waitForToken(request, scope, wait);
        else this.#reportThrottle(request, 0);
      }
      let attempt: Attempt;
      try {
        const options: Dispatcher.DispatchOptions = {
          origin,
          path,
          method: request.method,
          headers: request.headers,
          body: body ?? null,
        };
        attempt = buffered
          ? await this.#sendBuffered(options, scope)
          : await this.#sendOpen(options, scope);
      } catch (error) {
        scope.throwIfAborted();
        const decision = retry.decide(retryRequest, retries, { error }, maxRetries);
        if (decision === undefined || decision.delayMs > scope.remainingMs()) {
          throw this.#connectionError(request, error, retries + 1);
        }
        await this.#wait(request, scope, retries, decision.delayMs, decision.reason);
        continue;
      }
      const { statusCode, headers } = attempt;
      this.#handleWarnings(headers);
      if (statusCode >= 200 && statusCode <= 206) {
        if (attempt.stream) return { statusCode, headers, body: attempt.stream };
        const bytes = attempt.bytes ?? EMPTY;
        if (attempt.failure === undefined) {
          const asText =
            mode === 'text' ||
            (mode === 'protobuf-or-text' && !isProtobufMediaType(header(headers, 'content-type')));
          return { statusCode, headers, body: asText ? bytes.toString('utf8') : bytes };
        }
        // The body was cut short (reset, socket timeout): a GET may be read again.
        scope.throwIfAborted();
        const decision = retry.decide(
          retryRequest,
          retries,
          { error: attempt.failure },
          maxRetries,
        );
        if (decision === undefined || decision.delayMs > scope.remainingMs()) {
          throw this.#connectionError(request, attempt.failure, retries + 1);
        }
        await this.#wait(request, scope, retries, decision.delayMs, decision.reason);
        continue;
      }
      const decision = retry.decide(
        retryRequest,
        retries,
        {
          statusCode,
          retryAfter: header(headers, 'retry-after'),
          flowSchemaUid: header(headers, 'x-kubernetes-pf-flowschema-uid'),
        },
        maxRetries,
      );
      // The pushback is remembered even when this request gives up, so the others hold back.
      if (decision !== undefined && decision.pauseMs > 0) {
        group ??= apiGroupOf(request.path, this.settings.basePath);
        this.#pauses.pause(group, this.settings.clock.now() + decision.pauseMs);
      }
      if (decision === undefined || decision.delayMs > scope.remainingMs()) {
        let errorBody: Buffer;
        if (attempt.stream) {
          try {
            errorBody = await scope.guard(readLimited(attempt.stream, MAX_ERROR_BODY_BYTES));
          } catch {
            // The error body was cut short: report the status without it.
            attempt.stream.destroy();
            scope.throwIfAborted();
            errorBody = EMPTY;
          }
        } else {
          if (attempt.failure) scope.throwIfAborted();
          // A body cut short gives what came of it; a Status needs only its start.
          errorBody = attempt.bytes ?? EMPTY;
        }
        throw apiErrorFromResponse(request, statusCode, headers, errorBody);
      }
      attempt.stream?.dump({ limit: DRAIN_LIMIT_BYTES }).catch(() => undefined);
      await this.#wait(request, scope, retries, decision.delayMs, decision.reason);
    }
  }

  /**
   * #sendBuffered sends one attempt and reads its body through a {@link BufferingHandler}, with
   * no response stream: most requests are buffered, and a stream per request is most of what
   * `dispatcher.request()` costs beyond the connection.
   */
  #sendBuffered(options: Dispatcher.DispatchOptions, scope: RequestScope): Promise<Attempt> {
    const handler = new BufferingHandler(scope, MAX_ERROR_BODY_BYTES);
    this.settings.dispatcher.dispatch(options, handler);
    return handler.promise.then((answer): Attempt => ({
      statusCode: answer.statusCode,
      headers: answer.headers,
      bytes: answer.body,
      failure: answer.failure,
    }));
  }

  /** #sendOpen sends one attempt of a stream or watch and resolves at its headers. */
  async #sendOpen(options: Dispatcher.DispatchOptions, scope: RequestScope): Promise<Attempt> {
    const response = await this.settings.dispatcher.request({
      ...options,
      signal: scope.signal,
    });
    return { statusCode: response.statusCode, headers: response.headers, stream: response.body };
  }

  /** #waitForToken waits for a throttle token and tells `onThrottle` how long it took. */
  async #waitForToken(
    request: RestRequest,
    scope: RequestScope,
    wait: Promise<void>,
  ): Promise<void> {
    const clock = this.settings.clock;
    if (this.settings.onThrottle === undefined) return scope.guard(wait);
    const started = clock.now();
    try {
      await scope.guard(wait);
    } finally {
      this.#reportThrottle(request, clock.now() - started);
    }
  }

  /** #reportThrottle tells `onThrottle`, if any, that an attempt of `request` waited `waitedMs` for its token. */
  #reportThrottle(request: RestRequest, waitedMs: number): void {
    this.settings.onThrottle?.({ request: errorRequest(request), host: this.#host, waitedMs });
  }

  async #waitForPause(group: string, scope: RequestScope): Promise<void> {
    const clock = this.settings.clock;
    for (;;) {
      const remaining = this.#pauses.remainingMs(group, clock.now());
      if (remaining <= 0) return;
      await scope.guard(sleep(clock, remaining, scope.signal));
    }
  }

  async #wait(
    request: RestRequest,
    scope: RequestScope,
    retries: number,
    delayMs: number,
    reason: string,
  ): Promise<void> {
    this.settings.onRetry?.({
      request: errorRequest(request),
      retry: retries + 1,
      delayMs,
      reason,
    });
    await scope.guard(sleep(this.settings.clock, delayMs, scope.signal));
  }

  #connectionError(request: RestRequest, error: unknown, attempts: number): ConnectionError {
    const kind = classifyTransportFailure(error);
    const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
    return new ConnectionError(
      `${request.method.toLowerCase()} ${request.path} failed${tries}: ${describeTransportFailure(error)}`,
      {
        request: errorRequest(request),
        attempts,
        mayHaveReachedServer: kind !== 'unsent',
        cause: error,
      },
    );
  }
}
