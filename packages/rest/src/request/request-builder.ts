import type { Readable } from 'node:stream';
import { describeValue } from '../describe-value.js';
import { RequestBuildError } from '../errors.js';
import type { ListPager, PagerOptions } from '../pager/list-pager.js';
import type { RestResponse } from '../response/rest-response.js';
import type { Watch, WatchStreamOptions } from '../watch/watch.js';
import type { WebSocketOptions } from '../websocket/open-websocket.js';
import type { WebSocketConnection } from '../websocket/websocket-connection.js';
import { encodeJson } from './encode-json.js';
import { formatGoDuration } from './go-duration.js';
import {
  DEFAULT_ACCEPT,
  JSON_CONTENT_TYPE,
  PATCH_CONTENT_TYPES,
  type PatchType,
} from './patch-type.js';
import { escapePathSegment, escapeQueryComponent, pathSegmentProblems } from './path-segment.js';
import type { RequestRunner } from './request-runner.js';
import type { HttpMethod, RequestBody, RestRequest } from './rest-request.js';

/** The numeric options of a WebSocket, each 0 or more (milliseconds or bytes). */
const WEBSOCKET_LIMITS = [
  'maxMessageBytes',
  'maxMessageFragments',
  'closeTimeoutMs',
  'pingIntervalMs',
  'pongTimeoutMs',
] as const;

/**
 * ParamValue is a value for {@link RequestBuilder.params}: arrays repeat the key, booleans are
 * `true`/`false`, `undefined` is skipped (client-go's omit-empty options encoding).
 */
export type ParamValue = string | number | boolean | readonly string[] | undefined;

/** RequestDefaults are the client settings a builder starts from. */
export interface RequestDefaults {
  /** basePath is the server URL's path without a trailing slash (`''` for most servers). */
  basePath: string;
  /** groupVersion is `v1` for the core group or `<group>/<version>`. */
  groupVersion: string;
  /** timeoutMs is the configured request timeout, sent as the `timeout` parameter. */
  timeoutMs?: number | undefined;
}

function quote(value: string): string {
  return JSON.stringify(value);
}

function problemsText(problems: readonly string[]): string {
  return `[${problems.join(' ')}]`;
}

/**
 * stringifyBody is `JSON.stringify(body)`, and for an object nested deeper than its recursion
 * reaches (a custom resource with free-form data, stored up to 10,000 levels deep by the API
 * server) the same text from a walk that does not recurse.
 */
function stringifyBody(body: object): string | undefined {
  try {
    return JSON.stringify(body);
  } catch (error) {
    // Too deep, not too long: a body past the longest string would fail the same way again.
    if (!(error instanceof RangeError) || /string length/i.test(error.message)) throw error;
    return encodeJson(body);
  }
}

function isReadable(value: unknown): value is Readable {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { pipe?: unknown }).pipe === 'function' &&
    typeof (value as { on?: unknown }).on === 'function'
  );
}

/**
 * RequestBuilder describes one API request fluently and does no I/O until a terminal method
 * (`execute`, `executeResponse`, `executeRaw`, `stream`, `watch`, `pager`) runs. The first mistake
 * (a namespace or name set twice, an empty name, a segment that is `.`/`..` or holds `/` or `%`)
 * is recorded and thrown as a `RequestBuildError` by `build()` and every terminal method, so
 * chains stay fluent. Call order does not matter: the path is always
 * `<base>/api/v1|/apis/<g>/<v>[/namespaces/<ns>]/<resource>[/<name>][/<subresource>…]`.
 * A builder is not safe to share between concurrent callers; build one per request.
 */
export class RequestBuilder {
  readonly #runner: RequestRunner | undefined;
  readonly #method: HttpMethod;
  readonly #defaults: RequestDefaults;
  #error: RequestBuildError | undefined;
  #groupVersion: string | undefined;
  #absolutePath: string | undefined;
  #namespace = '';
  #namespaceSet = false;
  #resource = '';
  #name = '';
  #nameSet = false;
  #subresource: string[] = [];
  #params: [string, string][] = [];
  #body: RequestBody | undefined;
  #bodySet = false;
  #accept: string | undefined;
  #patchType: PatchType | undefined;
  #timeoutMs: number | undefined;
  #signal: AbortSignal | undefined;
  #maxRetries: number | undefined;

  constructor(
    method: HttpMethod,
    defaults: RequestDefaults,
    runner?: RequestRunner,
    patchType?: PatchType,
  ) {
    this.#method = method;
    this.#defaults = defaults;
    this.#runner = runner;
    this.#patchType = patchType;
  }

  #fail(message: string): this {
    this.#error ??= new RequestBuildError(message);
    return this;
  }

  /** #notText records a mistake unless every value is a string (plain JavaScript callers). */
  #notText(what: string, ...values: readonly unknown[]): boolean {
    for (const value of values) {
      if (typeof value !== 'string') {
        this.#fail(`${what} must be a string, got ${describeValue(value)}`);
        return true;
      }
    }
    return false;
  }

  /** groupVersion selects the API: `v1` (core, under `/api`) or `<group>/<version>` (under `/apis`). */
  groupVersion(groupVersion: string): this {
    if (this.#error || this.#notText('group version', groupVersion)) return this;
    if (this.#groupVersion !== undefined) {
      return this.#fail(
        `group version already set to ${quote(this.#groupVersion)}, cannot change to ${quote(groupVersion)}`,
      );
    }
    const parts = groupVersion.split('/');
    if (
      groupVersion === '' ||
      parts.length > 2 ||
      parts.some((part) => part === '' || pathSegmentProblems(part).length > 0)
    ) {
      return this.#fail(`invalid group version ${quote(groupVersion)}`);
    }
    this.#groupVersion = groupVersion;
    return this;
  }

  /**
   * absPath replaces the `/api/v1` or `/apis/<g>/<v>` prefix with the given path segments (kept
   * below the server's base path), for non-resource URLs such as `/version` or `/apis`.
   */
  absPath(...segments: string[]): this {
    if (this.#error || this.#notText('path segment', ...segments)) return this;
    const joined = segments
      .flatMap((segment) => segment.split('/'))
      .filter((segment) => segment !== '')
      .map(escapePathSegment)
      .join('/');
    const trailingSlash =
      segments.length > 0 && (segments[segments.length - 1] ?? '').endsWith('/');
    this.#absolutePath = `/${joined}${trailingSlash && joined !== '' ? '/' : ''}`;
    return this;
  }

  /** namespace scopes the request to a namespace; an empty namespace means all namespaces. */
  namespace(namespace: string): this {
    if (this.#error || this.#notText('namespace', namespace)) return this;
    if (this.#namespaceSet) {
      return this.#fail(
        `namespace already set to ${quote(this.#namespace)}, cannot change to ${quote(namespace)}`,
      );
    }
    const problems = pathSegmentProblems(namespace);
    if (problems.length > 0) {
      return this.#fail(`invalid namespace ${quote(namespace)}: ${problemsText(problems)}`);
    }
    this.#namespaceSet = true;
    this.#namespace = namespace;
    return this;
  }

  /** resource names the resource type, e.g. `pods` (lowercased in the path). */
  resource(resource: string): this {
    if (this.#error || this.#notText('resource', resource)) return this;
    if (this.#resource !== '') {
      return this.#fail(
        `resource already set to ${quote(this.#resource)}, cannot change to ${quote(resource)}`,
      );
    }
    const problems = pathSegmentProblems(resource);
    if (problems.length > 0) {
      return this.#fail(`invalid resource ${quote(resource)}: ${problemsText(problems)}`);
    }
    this.#resource = resource;
    return this;
  }

  /** name names one object; it may not be empty. */
  name(name: string): this {
    if (this.#error || this.#notText('resource name', name)) return this;
    if (name === '') return this.#fail('resource name may not be empty');
    if (this.#nameSet) {
      return this.#fail(
        `resource name already set to ${quote(this.#name)}, cannot change to ${quote(name)}`,
      );
    }
    const problems = pathSegmentProblems(name);
    if (problems.length > 0) {
      return this.#fail(`invalid resource name ${quote(name)}: ${problemsText(problems)}`);
    }
    this.#nameSet = true;
    this.#name = name;
    return this;
  }

  /** subresource appends segments after the name, e.g. `status`, `scale`, `log`. */
  subresource(...segments: string[]): this {
    if (this.#error || this.#notText('subresource', ...segments)) return this;
    const joined = segments.join('/');
    if (this.#subresource.length > 0) {
      return this.#fail(
        `subresource already set to ${quote(this.#subresource.join('/'))}, cannot change to ${quote(joined)}`,
      );
    }
    for (const segment of segments) {
      const problems = pathSegmentProblems(segment);
      if (problems.length > 0) {
        return this.#fail(`invalid subresource ${quote(segment)}: ${problemsText(problems)}`);
      }
    }
    this.#subresource = segments.filter((segment) => segment !== '');
    return this;
  }

  /** param adds a query parameter; calling it again with the same key adds another value. */
  param(key: string, value: string | number | boolean): this {
    if (this.#error || this.#notText('parameter name', key)) return this;
    if (key === '') return this.#fail('parameter name may not be empty');
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      return this.#fail(
        `parameter ${quote(key)} must be a string, number or boolean, got ${describeValue(value)}`,
      );
    }
    this.#params.push([key, String(value)]);
    return this;
  }

  /**
   * params adds every defined entry of an options object (`ListOptions`, `CreateOptions`, …):
   * arrays repeat the key, booleans and numbers are written out, `undefined` is skipped.
   */
  params(options: Readonly<Record<string, ParamValue>>): this {
    if (typeof options !== 'object' || options === null) {
      return this.#fail(`params must be an object, got ${describeValue(options)}`);
    }
    for (const key of Object.keys(options)) {
      const value = options[key];
      if (value === undefined) continue;
      if (Array.isArray(value)) {
        for (const item of value as readonly string[]) this.param(key, item);
      } else {
        this.param(key, value as string | number | boolean);
      }
    }
    return this;
  }

  /**
   * body sets what is sent: an object is encoded as JSON (Content-Type `application/json`, or the
   * patch type's for PATCH), text and bytes are sent as they are with the same Content-Type, and a
   * `Readable` is streamed once (such a request is never retried).
   */
  body(body: unknown): this {
    if (this.#error) return this;
    if (this.#bodySet) return this.#fail('body already set');
    this.#bodySet = true;
    if (body === undefined || body === null) {
      this.#body = undefined;
    } else if (typeof body === 'string' || body instanceof Uint8Array || isReadable(body)) {
      this.#body = body;
    } else if (typeof body === 'object') {
      try {
        this.#body = stringifyBody(body);
      } catch (error) {
        this.#error ??= new RequestBuildError(
          `body cannot be encoded as json: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    } else {
      return this.#fail(`unknown type used for body: ${typeof body}`);
    }
    return this;
  }

  /** accept replaces the Accept header (default {@link DEFAULT_ACCEPT}). */
  accept(mediaTypes: string): this {
    if (this.#notText('accept', mediaTypes)) return this;
    this.#accept = mediaTypes;
    return this;
  }

  /**
   * timeout bounds the whole request — every attempt, throttle wait and retry delay — and sends
   * `timeout=<Go duration>` so the server stops work too. Watches and streams get only the parameter.
   */
  timeout(milliseconds: number): this {
    if (this.#error) return this;
    if (typeof milliseconds !== 'number' || !Number.isFinite(milliseconds) || milliseconds < 0) {
      return this.#fail(
        `timeout must be a finite number of milliseconds ≥ 0, got ${describeValue(milliseconds)}`,
      );
    }
    this.#timeoutMs = milliseconds;
    return this;
  }

  /** signal aborts the request (and any wait or retry) when it fires; the error is its reason. */
  signal(signal: AbortSignal): this {
    if (!(signal instanceof AbortSignal)) {
      return this.#fail(`signal must be an AbortSignal, got ${describeValue(signal)}`);
    }
    this.#signal = signal;
    return this;
  }

  /**
   * maxRetries overrides the retry policy's limit for this request: a finite number, truncated;
   * negative or 0 disables retries (client-go's `MaxRetries`).
   */
  maxRetries(retries: number): this {
    if (typeof retries !== 'number' || !Number.isFinite(retries)) {
      return this.#fail(`maxRetries must be a finite number, got ${describeValue(retries)}`);
    }
    this.#maxRetries = Math.max(0, Math.trunc(retries));
    return this;
  }

  #prefix(): string {
    if (this.#absolutePath !== undefined) return `${this.#defaults.basePath}${this.#absolutePath}`;
    const groupVersion = this.#groupVersion ?? this.#defaults.groupVersion;
    return groupVersion.includes('/')
      ? `${this.#defaults.basePath}/apis/${groupVersion}`
      : `${this.#defaults.basePath}/api/${groupVersion}`;
  }

  #group(): string {
    const groupVersion = this.#groupVersion ?? this.#defaults.groupVersion;
    const slash = groupVersion.indexOf('/');
    return slash === -1 ? '' : groupVersion.slice(0, slash);
  }

  #path(): string {
    let path = this.#prefix();
    if (this.#namespace !== '') path += `/namespaces/${escapePathSegment(this.#namespace)}`;
    if (this.#resource !== '') path += `/${escapePathSegment(this.#resource.toLowerCase())}`;
    if (this.#name !== '') path += `/${escapePathSegment(this.#name)}`;
    for (const segment of this.#subresource) path += `/${escapePathSegment(segment)}`;
    return path;
  }

  #query(timeoutMs: number | undefined, extra: readonly [string, string][]): string {
    let params = extra.length === 0 ? this.#params : [...this.#params, ...extra];
    if (timeoutMs !== undefined && timeoutMs > 0) {
      params = params.filter(([key]) => key !== 'timeout');
      params.push(['timeout', formatGoDuration(timeoutMs)]);
    }
    if (params.length === 0) return '';
    // Go's url.Values.Encode: keys sorted, each key's values in the order they were added.
    const sorted =
      params.length === 1
        ? params
        : [...params].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    let query = '';
    for (const [key, value] of sorted) {
      query += `${query === '' ? '?' : '&'}${escapeQueryComponent(key)}=${escapeQueryComponent(value)}`;
    }
    return query;
  }

  #preflight(): void {
    if (this.#error) throw this.#error;
    if (this.#method === 'PATCH' && this.#patchType === undefined) {
      throw new RequestBuildError(
        'a patch request needs a patch type: json, merge, strategic-merge or apply',
      );
    }
    if (
      this.#patchType === 'apply' &&
      !this.#params.some(([key, value]) => key === 'fieldManager' && value !== '')
    ) {
      throw new RequestBuildError('server-side apply needs a field manager (fieldManager)');
    }
    if (this.#namespaceSet && this.#namespace === '') {
      if (this.#method === 'POST') {
        throw new RequestBuildError('an empty namespace may not be set during creation');
      }
      if (
        (this.#method === 'GET' || this.#method === 'PUT' || this.#method === 'DELETE') &&
        this.#name !== ''
      ) {
        throw new RequestBuildError(
          'an empty namespace may not be set when a resource name is provided',
        );
      }
    }
  }

  /**
   * build returns the plain description of the request, or throws the first builder mistake as a
   * `RequestBuildError`. It can be called any number of times.
   */
  build(extraParams: readonly [string, string][] = []): RestRequest {
    this.#preflight();
    const timeoutMs = this.#timeoutMs ?? this.#defaults.timeoutMs;
    const headers: Record<string, string> = { accept: this.#accept ?? DEFAULT_ACCEPT };
    if (this.#body !== undefined) {
      headers['content-type'] =
        this.#patchType !== undefined ? PATCH_CONTENT_TYPES[this.#patchType] : JSON_CONTENT_TYPE;
    }
    return {
      method: this.#method,
      path: this.#path(),
      query: this.#query(timeoutMs, extraParams),
      headers,
      body: this.#body,
      timeoutMs: this.#timeoutMs,
      signal: this.#signal,
      maxRetries: this.#maxRetries,
      group: this.#group(),
      resource: this.#resource,
      name: this.#name,
    };
  }

  /** url returns the path and query the request would use (throws the first builder mistake). */
  url(): string {
    const request = this.build();
    return `${request.path}${request.query}`;
  }

  #runnerOrThrow(): RequestRunner {
    if (!this.#runner)
      throw new RequestBuildError('this request builder is not attached to a client');
    return this.#runner;
  }

  /**
   * execute sends the request through throttle → retry → transport and resolves with the JSON body
   * parsed once into plain objects and typed by the caller. Non-2xx answers reject with `ApiError`.
   */
  async execute<T = unknown>(): Promise<T> {
    const runner = this.#runnerOrThrow();
    return runner.execute<T>(this.build());
  }

  /** executeResponse is {@link execute} with the status code and headers. */
  async executeResponse<T = unknown>(): Promise<RestResponse<T>> {
    const runner = this.#runnerOrThrow();
    return runner.executeResponse<T>(this.build());
  }

  /** executeRaw resolves with the body bytes of a 2xx answer, undecoded. */
  async executeRaw(): Promise<Buffer> {
    const runner = this.#runnerOrThrow();
    return runner.executeRaw(this.build());
  }

  /**
   * stream resolves with the body of a 2xx answer as a `Readable` once the headers arrive (logs,
   * large downloads). The caller owns it and must consume or destroy it to free the connection.
   */
  async stream(): Promise<Readable> {
    const runner = this.#runnerOrThrow();
    return runner.stream(this.build());
  }

  /**
   * watch opens a watch on this list URL (`watch=true`, and `allowWatchBookmarks=true` when asked)
   * and resolves once the server accepted it; errors before that (403, 410) reject with `ApiError`.
   */
  async watch<T = unknown>(options: WatchStreamOptions = {}): Promise<Watch<T>> {
    const runner = this.#runnerOrThrow();
    if (typeof options !== 'object' || options === null) {
      throw new RequestBuildError(`watch options must be an object, got ${describeValue(options)}`);
    }
    const idle = options.idleTimeoutMs;
    if (idle !== undefined && (typeof idle !== 'number' || !Number.isFinite(idle) || idle < 0)) {
      throw new RequestBuildError(
        `watch idleTimeoutMs must be a finite number of milliseconds ≥ 0, got ${describeValue(idle)}`,
      );
    }
    const omit = options.omitManagedFields;
    if (omit !== undefined && typeof omit !== 'boolean') {
      throw new RequestBuildError(
        `watch omitManagedFields must be a boolean, got ${describeValue(omit)}`,
      );
    }
    const extra: [string, string][] = [['watch', 'true']];
    if (options.allowWatchBookmarks) extra.push(['allowWatchBookmarks', 'true']);
    return runner.watch<T>(this.build(extra), options);
  }

  /**
   * webSocket opens this GET as a WebSocket (exec, attach, port-forward) offering
   * `options.protocols`, and resolves once the server switched protocols (see `openWebSocket`:
   * a refusal is an `ApiError`). The caller owns the connection and closes it.
   */
  async webSocket(options: WebSocketOptions): Promise<WebSocketConnection> {
    const runner = this.#runnerOrThrow();
    if (
      typeof options !== 'object' ||
      options === null ||
      !Array.isArray(options.protocols) ||
      !options.protocols.every((protocol) => typeof protocol === 'string' && protocol !== '')
    ) {
      throw new RequestBuildError(
        `webSocket options must be { protocols: string[] }, got ${describeValue(options)}`,
      );
    }
    for (const key of WEBSOCKET_LIMITS) {
      const value = options[key];
      if (value !== undefined && !(typeof value === 'number' && value >= 0 && value < Infinity)) {
        throw new RequestBuildError(
          `webSocket options.${key} must be a number of 0 or more, got ${describeValue(value)}`,
        );
      }
    }
    if (this.#method !== 'GET') throw new RequestBuildError('a websocket request must be a GET');
    return runner.webSocket(this.build(), options);
  }

  /** pager pages through this list URL with `limit`/`continue` (see `ListPager`). */
  pager<T = unknown>(options: PagerOptions = {}): ListPager<T> {
    const runner = this.#runnerOrThrow();
    return runner.pager<T>(this.build(), options);
  }
}
