import type { IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Dispatcher } from 'undici';
import { toHeaderList } from '../../src/interceptors/header-list.js';
import type {
  TransportInterceptor,
  TransportInterceptorPosition,
} from '../../src/transport/transport-interceptor.js';

/** Seen is what an observing interceptor saw of one request it passed on. */
export interface Seen {
  observer: string;
  method: string;
  path: string;
  /** headers by lower-case name (repeated ones joined with ", "). */
  headers: Record<string, string>;
  status?: number;
  /** responseHeaders are the response headers as they reached this interceptor. */
  responseHeaders?: IncomingHttpHeaders;
  contentEncoding?: string | undefined;
  firstBytes?: number[];
  bodyBytes: number;
}

/**
 * observer is a user interceptor that records, per request it passes on, the request headers
 * and what comes back through it (status, content-encoding, the body's first bytes and size).
 */
export function observer(
  name: string,
  position: TransportInterceptorPosition,
  log: Seen[],
  priority?: TransportInterceptor['priority'],
): TransportInterceptor {
  return {
    name,
    position,
    ...(priority ? { priority } : {}),
    interceptor: (dispatch) => (request, handler) => {
      const list = toHeaderList(request.headers);
      const headers: Record<string, string> = {};
      for (let index = 0; index + 1 < list.length; index += 2) {
        const key = list[index]!.toLowerCase();
        headers[key] = headers[key] ? `${headers[key]}, ${list[index + 1]}` : list[index + 1]!;
      }
      const seen: Seen = {
        observer: name,
        method: request.method,
        path: request.path,
        headers,
        bodyBytes: 0,
      };
      log.push(seen);
      return dispatch(request, new ObservingHandler(handler, seen));
    },
  };
}

/** ObservingHandler forwards every callback to `handler`, noting the response in `seen`. */
class ObservingHandler implements Dispatcher.DispatchHandler {
  readonly #handler: Dispatcher.DispatchHandler;
  readonly #seen: Seen;

  constructor(handler: Dispatcher.DispatchHandler, seen: Seen) {
    this.#handler = handler;
    this.#seen = seen;
  }

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.#handler.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    socket: Duplex,
  ): void {
    this.#handler.onRequestUpgrade?.(controller, statusCode, headers, socket);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    statusMessage?: string,
  ): void {
    this.#seen.status = statusCode;
    this.#seen.responseHeaders = headers;
    this.#seen.contentEncoding = headers['content-encoding'];
    this.#handler.onResponseStart?.(controller, statusCode, headers, statusMessage);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#seen.firstBytes ??= [...chunk.subarray(0, 2)];
    this.#seen.bodyBytes += chunk.length;
    this.#handler.onResponseData?.(controller, chunk);
  }

  onResponseEnd(controller: Dispatcher.DispatchController, trailers: IncomingHttpHeaders): void {
    this.#handler.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.#handler.onResponseError?.(controller, error);
  }
}
