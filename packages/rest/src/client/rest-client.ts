import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { describeValue } from '../describe-value.js';
import {
  ApiError,
  RequestBuildError,
  ResponseDecodeError,
  RestConfigurationError,
} from '../errors.js';
import type { PatchType } from '../request/patch-type.js';
import {
  RequestBuilder,
  type ListObject,
  type ListPager as ListPagerContract,
  type PagerOptions,
  type RequestRunner,
  type RestResponse,
  type Watch,
  type WatchOptions,
} from '../request/request-builder.js';
import type { HttpMethod, RestRequest } from '../request/rest-request.js';
import { WarningLogger, type WarningHandler } from '../response/warning-handler.js';
import type { RetryPolicy } from '../retry/retry-policy.js';
import { isStatus } from '../status.js';
import { systemClock, type Clock } from '../timers/clock.js';
import type { RateLimiter } from '../throttle/token-bucket.js';
import { WatchStream } from '../watch/watch-stream.js';
import { ListPager } from './list-pager.js';
import { OpenStreams } from './open-streams.js';
import { ResponseBodyStream } from './response-body-stream.js';
import { RequestExecutor, type BufferedResponse, type RetryEvent } from './request-executor.js';

/**
 * RestTransport is what a {@link RestClient} sends through: an undici `Dispatcher` (an `Agent`,
 * a `Pool`, or @k/transport's dispatcher with auth, impersonation and user agent composed in) and
 * the server URL. The client never closes the dispatcher; its owner does.
 */
export interface RestTransport {
  readonly dispatcher: Dispatcher;
  /** server is the API server URL; a path in it (`https://host/k8s/clusters/c1`) prefixes every request. */
  readonly server: string | URL;
}

/**
 * ServerDispatcher is a dispatcher that knows its API server — @k/transport's `Transport`, which a
 * {@link RestClient} takes as it is.
 */
export type ServerDispatcher = Dispatcher & { readonly server: { readonly url: URL } };

function isServerDispatcher(value: RestTransport | ServerDispatcher): value is ServerDispatcher {
  return typeof (value as Partial<Dispatcher>).dispatch === 'function';
}

/** RestClientOptions configure a {@link RestClient}. */
export interface RestClientOptions {
  /** groupVersion is the default API of built requests: `v1` (core, default) or `<group>/<version>`. */
  groupVersion?: string;
  /**
   * timeoutMs is the configured request timeout (kubeconfig `--request-timeout`, client-go's
   * `Config.Timeout`): it bounds each buffered request on the client and is sent as the
   * `timeout` parameter on every request. Unset: requests are bounded by
   * {@link DEFAULT_REQUEST_TIMEOUT_MS} on the client only and carry no parameter. 0: no timeout.
   */
  timeoutMs?: number;
  /** watchIdleTimeoutMs is the default idle timeout of watches (default 5 minutes; 0 disables). */
  watchIdleTimeoutMs?: number;
  /** warningHandler receives the server's `Warning` headers (default: a {@link WarningLogger}). */
  warningHandler?: WarningHandler;
  /** onRetry is told about each retry before its wait starts. */
  onRetry?: (event: RetryEvent) => void;
  clock?: Clock;
}

/** DEFAULT_REQUEST_TIMEOUT_MS bounds a buffered request when no timeout is configured (60 s, the server's own default). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** DEFAULT_WATCH_IDLE_TIMEOUT_MS closes a watch that received nothing for 5 minutes. */
export const DEFAULT_WATCH_IDLE_TIMEOUT_MS = 5 * 60_000;

/** ApplyOptions are the parameters of a server-side apply. */
export interface ApplyOptions {
  /** fieldManager names the owner of the applied fields; required. */
  fieldManager: string;
  /** force takes over fields another manager owns instead of failing with a conflict (default false). */
  force?: boolean;
}

const sharedWarningLogger = new WarningLogger();

function checkDuration(name: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new RestConfigurationError(
      `rest client ${name} must be a finite number of milliseconds ≥ 0, got ${describeValue(value)}`,
    );
  }
}

function splitServer(url: URL): { origin: string; basePath: string } {
  return { origin: url.origin, basePath: url.pathname.replace(/\/+$/, '') };
}

/**
 * RestClient is client-go's `RESTClient`: it builds requests against one API server and runs them
 * through throttle → retry → transport ({@link RequestExecutor}). The throttle and retry policy
 * are shared by every client derived with {@link RestClient.withGroupVersion} (and by everything
 * registered from one container), so one configuration has one token bucket. JSON is parsed once
 * with `JSON.parse` into plain objects. Safe for concurrent use; owns no resources.
 */
export class RestClient implements RequestRunner {
  /** transport is what the client was given (a `Transport`, or a dispatcher and server URL). */
  readonly transport: RestTransport | ServerDispatcher;
  /** dispatcher sends the requests; its owner (not the client) closes it. */
  readonly dispatcher: Dispatcher;
  /** server is the API server URL requests go to. */
  readonly server: URL;
  readonly throttle: RateLimiter;
  readonly retry: RetryPolicy;
  readonly options: Readonly<RestClientOptions>;
  readonly #executor: RequestExecutor;
  readonly #defaults: { basePath: string; groupVersion: string; timeoutMs?: number };
  readonly #watchIdleTimeoutMs: number;
  readonly #openStreams: OpenStreams;

  constructor(
    transport: RestTransport | ServerDispatcher,
    throttle: RateLimiter,
    retry: RetryPolicy,
    options: RestClientOptions = {},
  ) {
    if (typeof transport !== 'object' || transport === null) {
      throw new RestConfigurationError(
        `RestClient needs a transport (a @k/transport Transport, or { dispatcher, server }), got ${describeValue(transport)}`,
      );
    }
    if (typeof throttle?.tryAcquire !== 'function' || typeof throttle.acquire !== 'function') {
      throw new RestConfigurationError(
        `RestClient needs a rate limiter (e.g. new TokenBucket()), got ${describeValue(throttle)}`,
      );
    }
    if (typeof retry?.decide !== 'function') {
      throw new RestConfigurationError(
        `RestClient needs a retry policy (e.g. new RetryPolicy()), got ${describeValue(retry)}`,
      );
    }
    if (typeof options !== 'object' || options === null) {
      throw new RestConfigurationError(
        `RestClient options must be an object, got ${describeValue(options)}`,
      );
    }
    this.transport = transport;
    if (isServerDispatcher(transport)) {
      this.dispatcher = transport;
      this.server = transport.server.url;
    } else {
      this.dispatcher = transport.dispatcher;
      this.server =
        typeof transport.server === 'string' ? new URL(transport.server) : transport.server;
    }
    this.throttle = throttle;
    this.retry = retry;
    this.options = options;
    checkDuration('timeoutMs', options.timeoutMs);
    checkDuration('watchIdleTimeoutMs', options.watchIdleTimeoutMs);
    const { origin, basePath } = splitServer(this.server);
    const configured = options.timeoutMs;
    this.#defaults = {
      basePath,
      groupVersion: options.groupVersion ?? 'v1',
      ...(configured !== undefined && configured > 0 ? { timeoutMs: configured } : {}),
    };
    this.#watchIdleTimeoutMs = options.watchIdleTimeoutMs ?? DEFAULT_WATCH_IDLE_TIMEOUT_MS;
    this.#openStreams = new OpenStreams(this.dispatcher);
    this.#executor = new RequestExecutor({
      dispatcher: this.dispatcher,
      origin,
      basePath,
      throttle,
      retry,
      defaultTimeoutMs: configured ?? DEFAULT_REQUEST_TIMEOUT_MS,
      warningHandler: options.warningHandler ?? sharedWarningLogger,
      clock: options.clock ?? systemClock,
      onRetry: options.onRetry,
    });
  }

  /**
   * withGroupVersion returns a client for another API group version sharing this one's transport,
   * throttle, retry policy and options.
   */
  withGroupVersion(groupVersion: string): RestClient {
    return new RestClient(this.transport, this.throttle, this.retry, {
      ...this.options,
      groupVersion,
    });
  }

  /** verb starts a request with any method (PATCH needs {@link patch} for its patch type). */
  verb(method: HttpMethod): RequestBuilder {
    return new RequestBuilder(method, this.#defaults, this);
  }

  /** get starts a GET (get, list; `.watch()` and `.pager()` also start from it). */
  get(): RequestBuilder {
    return this.verb('GET');
  }

  /** post starts a POST (create). */
  post(): RequestBuilder {
    return this.verb('POST');
  }

  /** put starts a PUT (update; send the object's `resourceVersion` to detect conflicts). */
  put(): RequestBuilder {
    return this.verb('PUT');
  }

  /** delete starts a DELETE (delete options go in the body, as client-go sends them). */
  delete(): RequestBuilder {
    return this.verb('DELETE');
  }

  /** patch starts a PATCH whose body is interpreted as `type` (which sets the Content-Type). */
  patch(type: PatchType): RequestBuilder {
    return new RequestBuilder('PATCH', this.#defaults, this, type);
  }

  /**
   * apply starts a server-side apply: a PATCH of type `apply` with `fieldManager` and `force`
   * (always sent, `false` by default, as client-go). A conflict with another manager's fields
   * fails with an `ApiError` that `isConflict`; `force: true` takes them over.
   */
  apply(options: ApplyOptions): RequestBuilder {
    return this.patch('apply').params({
      fieldManager: options.fieldManager === '' ? undefined : options.fieldManager,
      force: options.force ?? false,
    });
  }

  #decode<T>(request: RestRequest, response: BufferedResponse<string>): T {
    const { body, statusCode, headers } = response;
    const contentType =
      typeof headers['content-type'] === 'string' ? headers['content-type'] : undefined;
    const errorRequest = { method: request.method, path: request.path };
    if (body.length === 0) {
      throw new ResponseDecodeError(
        `0-length response with status code: ${statusCode} and content type: ${contentType ?? ''}`,
        { statusCode, request: errorRequest, ...(contentType ? { contentType } : {}) },
      );
    }
    let decoded: unknown;
    try {
      decoded = JSON.parse(body);
    } catch (error) {
      throw new ResponseDecodeError(
        `${request.method.toLowerCase()} ${request.path} returned a body that is not valid json (status ${statusCode}, content type ${contentType ?? 'none'}, ${Buffer.byteLength(body)} bytes)`,
        {
          statusCode,
          request: errorRequest,
          cause: error,
          ...(contentType ? { contentType } : {}),
        },
      );
    }
    if (
      typeof decoded === 'object' &&
      decoded !== null &&
      (decoded as { kind?: unknown }).kind === 'Status' &&
      isStatus(decoded) &&
      decoded.status === 'Failure'
    ) {
      throw new ApiError(decoded, { httpStatusCode: statusCode, request: errorRequest });
    }
    return decoded as T;
  }

  /** execute: see {@link RequestBuilder.execute}. */
  async execute<T>(request: RestRequest): Promise<T> {
    return this.#decode<T>(request, await this.#executor.buffered(request, 'text'));
  }

  /** executeResponse: see {@link RequestBuilder.executeResponse}. */
  async executeResponse<T>(request: RestRequest): Promise<RestResponse<T>> {
    const response = await this.#executor.buffered(request, 'text');
    return {
      statusCode: response.statusCode,
      headers: response.headers,
      object: this.#decode<T>(request, response),
    };
  }

  /** executeRaw: see {@link RequestBuilder.executeRaw}. */
  async executeRaw(request: RestRequest): Promise<Buffer> {
    return (await this.#executor.buffered(request, 'bytes')).body;
  }

  /** stream: see {@link RequestBuilder.stream}. */
  async stream(request: RestRequest): Promise<Readable> {
    const response = await this.#executor.open(request, false);
    const stream = new ResponseBodyStream(
      response.body,
      { method: request.method, path: request.path },
      request.signal,
    );
    const forget = this.#openStreams.add({ close: () => stream.destroy() });
    response.body.once('close', () => {
      forget();
      response.done();
    });
    return stream;
  }

  /** watch: see {@link RequestBuilder.watch}. */
  async watch<T>(request: RestRequest, options: WatchOptions): Promise<Watch<T>> {
    const response = await this.#executor.open(request, true);
    // Registered before it exists: a watch whose signal already fired closes in its constructor.
    let watch: WatchStream<T> | undefined = undefined;
    const forget = this.#openStreams.add({ close: () => watch?.close() });
    watch = new WatchStream<T>(response.body, {
      request: { method: request.method, path: request.path },
      idleTimeoutMs: options.idleTimeoutMs ?? this.#watchIdleTimeoutMs,
      signal: request.signal,
      onClose: () => {
        forget();
        response.done();
      },
    });
    return watch;
  }

  /**
   * closeStreams ends every watch and stream open on this client's dispatcher (by this client or
   * any sharing the dispatcher): watch loops end normally, streams end quietly. Call it before
   * closing the transport, whose graceful close waits for them otherwise.
   */
  closeStreams(): void {
    this.#openStreams.closeAll();
  }

  /** pager: see {@link RequestBuilder.pager}. */
  pager<T>(request: RestRequest, options: PagerOptions): ListPagerContract<T> {
    if (request.method !== 'GET') {
      throw new RequestBuildError('only a GET list request can be paged');
    }
    return new ListPager<T>((page) => this.execute<ListObject<T>>(page), request, options);
  }
}
