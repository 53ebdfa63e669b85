import type { Readable } from 'node:stream';
import type { ApiServerDispatcher, ServerInfo } from '@k/transport';
import { describeValue } from '../describe-value.js';
import {
  ApiError,
  RequestBuildError,
  ResponseDecodeError,
  RestConfigurationError,
} from '../errors.js';
import type { PatchType } from '../request/patch-type.js';
import { ContinueTokenPager } from '../pager/continue-token-pager.js';
import type { ListPager, PagerOptions } from '../pager/list-pager.js';
import { RequestBuilder } from '../request/request-builder.js';
import type { RequestRunner } from '../request/request-runner.js';
import type { HttpMethod, RestRequest } from '../request/rest-request.js';
import type { ListObject } from '../response/list-object.js';
import type { RestResponse } from '../response/rest-response.js';
import type { RetryPolicy } from '../retry/retry-policy.js';
import { isStatus } from '../status.js';
import type { RateLimiter } from '../throttle/token-bucket.js';
import type { Watch, WatchStreamOptions } from '../watch/watch.js';
import { WatchStream } from '../watch/watch-stream.js';
import { OpenStreams } from './open-streams.js';
import { onAbort } from '../timers/on-abort.js';
import { openWebSocket, type WebSocketOptions } from '../websocket/open-websocket.js';
import type { WebSocketConnection } from '../websocket/websocket-connection.js';
import { ResponseBodyStream } from './response-body-stream.js';
import { RequestExecutor, type BufferedResponse } from './request-executor.js';
import { decodeProtobufObject, isProtobufMediaType } from '../protobuf/protobuf-object.js';
import {
  resolveRestClientOptions,
  withGroupVersionOf,
  type ResolvedRestClientOptions,
  type RestClientOptions,
} from './rest-client-options.js';

/**
 * ApplyPatchOptions are the parameters {@link RestClient.apply} sends with a server-side apply
 * patch (@k/clientset's `ApplyOptions` add the call's own settings).
 */
export interface ApplyPatchOptions {
  /** fieldManager names the owner of the applied fields; required. */
  fieldManager: string;
  /** force takes over fields another manager owns instead of failing with a conflict (default false). */
  force?: boolean | undefined;
}

// Dispatchers a createRestClient made: the clients sending through one own it and close it.
const OWNED_DISPATCHERS = new WeakSet<ApiServerDispatcher>();

/** ownDispatcher marks `dispatcher` as owned by the clients sending through it (createRestClient). */
export function ownDispatcher(dispatcher: ApiServerDispatcher): void {
  OWNED_DISPATCHERS.add(dispatcher);
}

function isApiServerDispatcher(value: unknown): value is ApiServerDispatcher {
  const candidate = value as Partial<ApiServerDispatcher> | undefined;
  return (
    typeof candidate?.dispatch === 'function' &&
    typeof candidate.server === 'object' &&
    candidate.server !== null &&
    typeof candidate.server.origin === 'string'
  );
}

/**
 * RestClient is client-go's `RESTClient`: it builds requests against one API server and runs them
 * through throttle → retry → transport ({@link RequestExecutor}). It sends through an
 * `ApiServerDispatcher` — @k/transport's `Transport`, or `apiServerDispatcher(agent, url)` — whose
 * server and default namespace it takes as they are. The throttle and retry policy are shared by
 * every client derived with {@link RestClient.withGroupVersion} (and by everything registered
 * from one container), so one configuration has one token bucket. JSON is parsed once with
 * `JSON.parse` into plain objects. Safe for concurrent use.
 *
 * Ownership: a client from `createRestClient` owns the transport it made, and {@link close}
 * closes it; a client built with `new` owns nothing, and `close()` only ends its open streams.
 */
export class RestClient implements RequestRunner {
  /** dispatcher sends the requests (a `Transport`, or any `ApiServerDispatcher`). */
  readonly dispatcher: ApiServerDispatcher;
  /** server is the API server requests go to (URL, origin, base path), the dispatcher's. */
  readonly server: ServerInfo;
  /** defaultNamespace is the context's namespace: what namespaced clients use when given none. */
  readonly defaultNamespace: string;
  readonly throttle: RateLimiter;
  readonly retry: RetryPolicy;
  /** options are the resolved options the client runs with. */
  readonly options: ResolvedRestClientOptions;
  readonly #executor: RequestExecutor;
  readonly #defaults: { basePath: string; groupVersion: string; timeoutMs?: number };
  readonly #openStreams: OpenStreams;

  constructor(
    dispatcher: ApiServerDispatcher,
    options: RestClientOptions | ResolvedRestClientOptions = {},
  ) {
    if (!isApiServerDispatcher(dispatcher)) {
      throw new RestConfigurationError(
        `RestClient needs an ApiServerDispatcher (a @k/transport Transport, or apiServerDispatcher(agent, url)), got ${describeValue(dispatcher)}`,
      );
    }
    const resolved = resolveRestClientOptions(options);
    this.dispatcher = dispatcher;
    this.server = dispatcher.server;
    this.defaultNamespace = dispatcher.defaultNamespace || 'default';
    this.throttle = resolved.throttle;
    this.retry = resolved.retry;
    this.options = resolved;
    const { origin, basePath } = dispatcher.server;
    this.#defaults = {
      basePath,
      groupVersion: resolved.groupVersion,
      ...(resolved.timeoutMs !== undefined ? { timeoutMs: resolved.timeoutMs } : {}),
    };
    this.#openStreams = new OpenStreams(dispatcher);
    this.#executor = new RequestExecutor({
      dispatcher,
      origin,
      basePath,
      throttle: resolved.throttle,
      retry: resolved.retry,
      defaultTimeoutMs: resolved.clientTimeoutMs,
      warningHandler: resolved.warningHandler,
      clock: resolved.clock,
      onRetry: resolved.onRetry,
      onThrottle: resolved.onThrottle,
    });
  }

  /**
   * withGroupVersion returns a client for another API group version sharing this one's
   * dispatcher, throttle, retry policy and options (and its ownership of the dispatcher).
   */
  withGroupVersion(groupVersion: string): RestClient {
    return new RestClient(this.dispatcher, withGroupVersionOf(this.options, groupVersion));
  }

  /**
   * close ends every watch and stream open on the dispatcher and, when the dispatcher was made
   * by `createRestClient` for this client, closes it (requests in flight finish first). A client
   * built with `new` leaves the dispatcher to its owner.
   */
  async close(): Promise<void> {
    this.closeStreams();
    if (OWNED_DISPATCHERS.has(this.dispatcher)) await this.dispatcher.close();
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
  apply(options: ApplyPatchOptions): RequestBuilder {
    return this.patch('apply').params({
      fieldManager: options.fieldManager === '' ? undefined : options.fieldManager,
      force: options.force ?? false,
    });
  }

  /**
   * #read reads a response to the end: as text, or — when the request accepts protobuf — as
   * bytes if the answer is protobuf (it may also be JSON: a kind without a protobuf encoding, or
   * a server that prefers JSON).
   */
  #read(request: RestRequest): Promise<BufferedResponse> {
    return this.#executor.buffered(request, acceptsProtobuf(request) ? 'protobuf-or-text' : 'text');
  }

  #decode<T>(request: RestRequest, response: BufferedResponse): T {
    const { body, statusCode, headers } = response;
    const contentType = contentTypeOf(headers);
    const errorRequest = { method: request.method, path: request.path };
    if (body.length === 0) {
      throw new ResponseDecodeError(
        `0-length response with status code: ${statusCode} and content type: ${contentType ?? ''}`,
        { statusCode, request: errorRequest, ...(contentType ? { contentType } : {}) },
      );
    }
    let decoded: unknown;
    // #read hands over bytes only for a protobuf answer.
    const protobuf = typeof body !== 'string';
    try {
      decoded = protobuf ? decodeProtobufObject(body) : JSON.parse(body);
    } catch (error) {
      const reason = protobuf
        ? `is not a protobuf object this client decodes (${(error as Error).message})`
        : 'is not valid json';
      throw new ResponseDecodeError(
        `${request.method.toLowerCase()} ${request.path} returned a body that ${reason} (status ${statusCode}, content type ${contentType ?? 'none'}, ${Buffer.byteLength(body)} bytes)`,
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
    return this.#decode<T>(request, await this.#read(request));
  }

  /** executeResponse: see {@link RequestBuilder.executeResponse}. */
  async executeResponse<T>(request: RestRequest): Promise<RestResponse<T>> {
    const response = await this.#read(request);
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
  async watch<T>(request: RestRequest, options: WatchStreamOptions): Promise<Watch<T>> {
    const response = await this.#executor.open(request, true);
    // Registered before it exists: a watch whose signal already fired closes in its constructor.
    let watch: WatchStream<T> | undefined = undefined;
    const forget = this.#openStreams.add({ close: () => watch?.close() });
    watch = new WatchStream<T>(response.body, {
      request: { method: request.method, path: request.path },
      idleTimeoutMs: options.idleTimeoutMs ?? this.options.watchIdleTimeoutMs,
      omitManagedFields: options.omitManagedFields ?? false,
      contentType: contentTypeOf(response.headers),
      signal: request.signal,
      onClose: () => {
        forget();
        response.done();
      },
    });
    return watch;
  }

  /** webSocket: see {@link RequestBuilder.webSocket}. */
  async webSocket(request: RestRequest, options: WebSocketOptions): Promise<WebSocketConnection> {
    const connection = await openWebSocket(
      this.dispatcher,
      this.server.origin,
      this.throttle,
      request,
      options,
    );
    const forget = this.#openStreams.add({ close: () => connection.close(1001) });
    const signal = request.signal;
    const unsubscribe = signal ? onAbort(signal, () => connection.destroy()) : undefined;
    connection.once('close', () => {
      forget();
      unsubscribe?.();
    });
    return connection;
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
  pager<T>(request: RestRequest, options: PagerOptions): ListPager<T> {
    if (request.method !== 'GET') {
      throw new RequestBuildError('only a GET list request can be paged');
    }
    return new ContinueTokenPager<T>((page) => this.execute<ListObject<T>>(page), request, options);
  }
}

function contentTypeOf(headers: BufferedResponse['headers']): string | undefined {
  const value = headers['content-type'];
  return typeof value === 'string' ? value : undefined;
}

/** acceptsProtobuf is true when the request's Accept lists the protobuf encoding. */
function acceptsProtobuf(request: RestRequest): boolean {
  const accept = request.headers.accept;
  return accept !== undefined && accept.split(',').some(isProtobufMediaType);
}
