import type { Readable } from 'node:stream';
import type { ListPager, PagerOptions } from '../pager/list-pager.js';
import type { RestResponse } from '../response/rest-response.js';
import type { Watch, WatchStreamOptions } from '../watch/watch.js';
import type { WebSocketOptions } from '../websocket/open-websocket.js';
import type { WebSocketConnection } from '../websocket/websocket-connection.js';
import type { RestRequest } from './rest-request.js';

/**
 * RequestRunner is what a `RequestBuilder` hands its finished description to (the `RestClient`).
 * Declared beside the builder, implemented above it, so the builder stays free of I/O.
 */
export interface RequestRunner {
  execute<T>(request: RestRequest): Promise<T>;
  executeResponse<T>(request: RestRequest): Promise<RestResponse<T>>;
  executeRaw(request: RestRequest): Promise<Buffer>;
  stream(request: RestRequest): Promise<Readable>;
  watch<T>(request: RestRequest, options: WatchStreamOptions): Promise<Watch<T>>;
  pager<T>(request: RestRequest, options: PagerOptions): ListPager<T>;
  webSocket(request: RestRequest, options: WebSocketOptions): Promise<WebSocketConnection>;
}
